import { Command } from 'commander';
import { commonOptions, jsonOption, parseId, withServices } from '../context.js';
import { emit, table } from '../output.js';

export function credentialCommand(): Command {
  const command = new Command('credential').description('issue and revoke API credentials for integrators');

  command
    .command('issue')
    .description('issue a credential with a generated password (shown once)')
    .requiredOption('--username <name>', 'the username, for example the integrator name')
    .option('--expires-at <time>', 'the credential stops working at this time, e.g. 2027-01-01T00:00:00Z')
    .option('--dispensaries <ids>', 'comma-separated dispensary ids: the only ones this credential may read')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{ username: string; expiresAt?: string; dispensaries?: string }>(self);
      await withServices(options, async ({ credentials }) => {
        const issued = await credentials.issue(options.username, undefined, {
          expiresAt: options.expiresAt,
          dispensaryIds: options.dispensaries?.split(',').map((id) => parseId(id.trim(), 'A dispensary id')),
        });
        emit(
          options,
          issued,
          `Issued credential ${issued.username}.\nPassword (shown once, send it securely): ${issued.password}`,
        );
      });
    });

  command
    .command('list')
    .description('list credentials (passwords are never shown again)')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ credentials }) => {
        const all = await credentials.list();
        const rows = all.map((c) => [
          c.username,
          c.createdAt,
          c.lastUsedAt ?? 'never',
          c.expiresAt ?? 'never',
          c.dispensaryIds?.join(',') ?? 'all',
          c.revokedAt ?? 'active',
        ]);
        emit(
          options,
          all,
          all.length === 0
            ? 'No credentials yet. Issue one with: menu-api credential issue --username NAME'
            : table(['USERNAME', 'CREATED', 'LAST USED', 'EXPIRES', 'DISPENSARIES', 'REVOKED'], rows),
        );
      });
    });

  command
    .command('revoke')
    .description('revoke a credential; running servers refuse it within a second')
    .argument('<username>', 'the credential username')
    .addOption(jsonOption())
    .action(async (username: string, _options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ credentials }) => {
        await credentials.revoke(username);
        emit(options, { username, revoked: true }, `Revoked credential ${username}.`);
      });
    });

  return command;
}
