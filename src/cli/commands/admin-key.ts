import { Command } from 'commander';
import { commonOptions, jsonOption, withServices } from '../context.js';
import { emit, table } from '../output.js';

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
    .action(async (_options, self: Command) => {
      const options = commonOptions<{ scope: string; name: string }>(self);
      await withServices(options, async ({ adminKeys }) => {
        const created = await adminKeys.create(options.name, options.scope);
        emit(
          options,
          created,
          `Created admin key ${created.name} (scope ${created.scope}).\nKey (shown once): ${created.key}`,
        );
      });
    });

  command
    .command('list')
    .description('list admin keys (never the keys themselves)')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ adminKeys }) => {
        const keys = await adminKeys.list();
        emit(
          options,
          keys,
          keys.length === 0
            ? 'No admin keys yet. Create one with: menu-api admin-key create --scope all --name NAME'
            : table(
                ['NAME', 'SCOPE', 'CREATED', 'REVOKED'],
                keys.map((key) => [key.name, key.scope, key.createdAt, key.revokedAt ?? 'active']),
              ),
        );
      });
    });

  command
    .command('revoke')
    .description('revoke an admin key; running servers refuse it within a second')
    .argument('<name>', 'the key name')
    .addOption(jsonOption())
    .action(async (name: string, _options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ adminKeys }) => {
        await adminKeys.revoke(name);
        emit(options, { name, revoked: true }, `Revoked admin key ${name}.`);
      });
    });

  return command;
}
