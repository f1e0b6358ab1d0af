import { Command } from 'commander';
import { jsonAction } from '../options.js';
import { settingsOf } from './account.js';

const actions = () => import('../actions/integrator.js');

const WHO = ['<integrator>', 'the integrator’s id or email'] as const;

export function integratorCommand(): Command {
  const command = new Command('integrator').description(
    'integrators who registered themselves at /developers: list them, give a confirmation link, approve or decline them',
  );
  jsonAction(
    command.command('list').description('list registrations and where each is (never a password)'),
    async (_args, options) => (await actions()).list(options),
  );
  const confirmLink = command
    .command('confirm-link')
    .description(
      'a new one-time link that confirms an integrator’s email, printed (emailed too with --smtp-url); earlier links stop working',
    )
    .argument(...WHO);
  jsonAction(confirmLink, async ([ref], options) =>
    (await actions()).confirmLink(ref!, options, settingsOf(confirmLink)),
  );
  for (const [decision, description] of [
    ['approve', 'approve a waiting integrator: it may sign in, and its API credential is created'],
    ['decline', 'decline a waiting integrator'],
  ] as const) {
    jsonAction(
      command
        .command(decision)
        .description(description)
        .argument(...WHO),
      async ([ref], options) => (await actions())[decision](ref!, options),
    );
  }
  return command;
}
