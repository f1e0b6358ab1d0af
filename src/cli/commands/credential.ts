import { Command } from 'commander';
import { addListAndRevoke, jsonAction } from '../options.js';

const actions = () => import('../actions/credential.js');

export function credentialCommand(): Command {
  const command = new Command('credential').description('issue and revoke API credentials for integrators');

  jsonAction<{ username: string; expiresAt?: string; dispensaries?: string }>(
    command
      .command('issue')
      .description('issue a credential with a generated password (shown once)')
      .requiredOption('--username <name>', 'the username, for example the integrator name')
      .option('--expires-at <time>', 'the credential stops working at this time, e.g. 2027-01-01T00:00:00Z')
      .option(
        '--dispensaries <ids>',
        'comma-separated dispensary ids: the only ones this credential may read',
      ),
    async (_args, options) => (await actions()).issue(options),
  );
  return addListAndRevoke(command, actions, {
    list: 'list credentials (passwords are never shown again)',
    revoke: 'revoke a credential; running servers refuse it within a second',
    argument: ['<username>', 'the credential username'],
  });
}
