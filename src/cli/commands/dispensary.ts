import { Command } from 'commander';
import { STORE_FIELD_HELP, STORE_FIELDS } from '../option-values.js';
import { commonOptions, jsonOption } from '../options.js';

const actions = () => import('../actions/dispensary.js');

export function dispensaryCommand(): Command {
  const command = new Command('dispensary').description('onboard dispensaries and manage their tokens');

  command
    .command('create')
    .description('create a dispensary and print its token (shown once: hand it to the dispensary)')
    .requiredOption('--name <name>', 'the dispensary name')
    .addOption(jsonOption())
    .action(async (_options, self: Command) =>
      (await actions()).create(commonOptions<{ name: string }>(self)),
    );

  command
    .command('list')
    .description('list dispensaries with their item counts')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => (await actions()).list(commonOptions(self)));

  command
    .command('rotate-token')
    .description('replace a dispensary token; the old one keeps working for the grace period')
    .argument('<id>', 'dispensary id')
    .option('--grace-seconds <seconds>', 'how long the old token keeps working (0: stop it at once)', '86400')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) =>
      (await actions()).rotateToken(id, commonOptions<{ graceSeconds: string }>(self)),
    );

  command
    .command('remove')
    .description('delete a dispensary and its whole menu')
    .argument('<id>', 'dispensary id')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => (await actions()).remove(id, commonOptions(self)));

  command
    .command('show')
    .description('show a dispensary and its store information')
    .argument('<id>', 'dispensary id')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => (await actions()).show(id, commonOptions(self)));

  const update = command
    .command('update')
    .description('set store information (what GET /store answers); "null" clears a field')
    .argument('<id>', 'dispensary id')
    .option('--from-file <file>', 'a JSON object of store fields (hours included)')
    .addOption(jsonOption());
  for (const field of STORE_FIELDS)
    update.option(`--${field.replaceAll('_', '-')} <value>`, STORE_FIELD_HELP[field]);
  update.action(async (id: string, _options, self: Command) =>
    (await actions()).update(id, commonOptions<Record<string, string | undefined>>(self)),
  );

  return command;
}
