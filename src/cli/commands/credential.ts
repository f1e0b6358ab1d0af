import { Command } from 'commander';
import { commonOptions, jsonOption } from '../options.js';

const actions = () => import('../actions/credential.js');

export function credentialCommand(): Command {
  const command = new Command('credential').description('issue and revoke API credentials for integrators');

  command
    .command('issue')
    .description('issue a credential with a generated password (shown once)')
    .requiredOption('--username <name>', 'the username, for example the integrator name')
    .option('--expires-at <time>', 'the credential stops working at this time, e.g. 2027-01-01T00:00:00Z')
    .option('--dispensaries <ids>', 'comma-separated dispensary ids: the only ones this credential may read')
    .addOption(jsonOption())
    .action(async (_options, self: Command) =>
      (await actions()).issue(
        commonOptions<{ username: string; expiresAt?: string; dispensaries?: string }>(self),
      ),
    );

  command
    .command('list')
    .description('list credentials (passwords are never shown again)')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => (await actions()).list(commonOptions(self)));

  command
    .command('revoke')
    .description('revoke a credential; running servers refuse it within a second')
    .argument('<username>', 'the credential username')
    .addOption(jsonOption())
    .action(async (username: string, _options, self: Command) =>
      (await actions()).revoke(username, commonOptions(self)),
    );

  return command;
}
