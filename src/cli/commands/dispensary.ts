import { Command } from 'commander';
import { commonOptions, jsonOption, parseId, withServices } from '../context.js';
import { emit, table } from '../output.js';

export function dispensaryCommand(): Command {
  const command = new Command('dispensary').description('onboard dispensaries and manage their tokens');

  command
    .command('create')
    .description('create a dispensary and print its token (shown once: hand it to the dispensary)')
    .requiredOption('--name <name>', 'the dispensary name')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{ name: string }>(self);
      await withServices(options, async ({ dispensaries }) => {
        const created = await dispensaries.create(options.name);
        emit(
          options,
          { id: created.id, name: created.name, token: created.token },
          `Created dispensary ${created.id} (${created.name}).\nToken (shown once, store it now): ${created.token}`,
        );
      });
    });

  command
    .command('list')
    .description('list dispensaries with their item counts')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ dispensaries }) => {
        const all = await dispensaries.list();
        const rows = all.map((d) => [d.id, d.name, d.itemCount, d.activeItemCount, d.updatedAt]);
        emit(
          options,
          all,
          all.length === 0
            ? 'No dispensaries yet. Create one with: menu-api dispensary create --name NAME'
            : table(['ID', 'NAME', 'ITEMS', 'ACTIVE', 'UPDATED'], rows),
        );
      });
    });

  command
    .command('rotate-token')
    .description('replace a dispensary token; the old one stops working at once')
    .argument('<id>', 'dispensary id')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ dispensaries }) => {
        const issued = await dispensaries.rotateToken(parseId(id, 'The dispensary id'));
        emit(options, issued, `New token for dispensary ${issued.id} (shown once): ${issued.token}`);
      });
    });

  command
    .command('remove')
    .description('delete a dispensary and its whole menu')
    .argument('<id>', 'dispensary id')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ dispensaries }) => {
        const dispensaryId = parseId(id, 'The dispensary id');
        await dispensaries.remove(dispensaryId);
        emit(options, { id: dispensaryId, removed: true }, `Removed dispensary ${dispensaryId}.`);
      });
    });

  return command;
}
