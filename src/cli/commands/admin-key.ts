import { Command } from 'commander';
import { commonOptions, jsonOption } from '../options.js';

const actions = () => import('../actions/admin-key.js');

export function adminKeyCommand(): Command {
  const command = new Command('admin-key').description(
    'keys for the sync API (/admin/v1) used by point-of-sale systems',
  );

  command
    .command('create')
    .description('create an admin key (shown once)')
    .requiredOption('--scope <scope>', 'all, or dispensary:ID to limit the key to one dispensary')
    .requiredOption('--name <name>', 'a name for the key, shown in the audit log')
    .addOption(jsonOption())
    .action(async (_options, self: Command) =>
      (await actions()).create(commonOptions<{ scope: string; name: string }>(self)),
    );

  command
    .command('list')
    .description('list admin keys (never the keys themselves)')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => (await actions()).list(commonOptions(self)));

  command
    .command('revoke')
    .description('revoke an admin key; running servers refuse it within a second')
    .argument('<name>', 'the key name')
    .addOption(jsonOption())
    .action(async (name: string, _options, self: Command) =>
      (await actions()).revoke(name, commonOptions(self)),
    );

  return command;
}
