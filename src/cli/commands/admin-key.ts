import { Command } from 'commander';
import { addListAndRevoke, jsonAction } from '../options.js';

const actions = () => import('../actions/admin-key.js');

export function adminKeyCommand(): Command {
  const command = new Command('admin-key').description(
    'keys for the sync API (/admin/v1) used by point-of-sale systems',
  );

  jsonAction<{ scope: string; name: string }>(
    command
      .command('create')
      .description('create an admin key (shown once)')
      .requiredOption('--scope <scope>', 'all, or dispensary:ID to limit the key to one dispensary')
      .requiredOption('--name <name>', 'a name for the key, shown in the audit log'),
    async (_args, options) => (await actions()).create(options),
  );
  return addListAndRevoke(command, actions, {
    list: 'list admin keys (never the keys themselves)',
    revoke: 'revoke an admin key; running servers refuse it within a second',
    argument: ['<name>', 'the key name'],
  });
}
