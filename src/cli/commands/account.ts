import { Command } from 'commander';
import type { AccountCliSettings } from '../actions/account.js';
import { jsonAction } from '../options.js';
import { readSetting } from '../settings-options.js';

const actions = () => import('../actions/account.js');

/** Where links point and how they are sent, read as `serve` reads them. */
export function settingsOf(command: Command): AccountCliSettings {
  return { publicUrl: readSetting(command, 'publicUrl'), smtpUrl: readSetting(command, 'smtpUrl') };
}

const DISPENSARIES = [
  '--dispensaries <ids>',
  'the dispensaries a manager or staff account covers, e.g. 1,4',
] as const;

export function accountCommand(): Command {
  const command = new Command('account').description(
    'people’s accounts for the console: operator, manager or staff of chosen dispensaries',
  );
  const invite = command
    .command('invite')
    .description('invite a person: prints a one-time link valid for 7 days (emailed too with --smtp-url)')
    .requiredOption('--email <address>', 'the person’s email address')
    .requiredOption('--role <role>', 'operator (everything), manager or staff (of --dispensaries)')
    .option(...DISPENSARIES);
  jsonAction<{ email: string; role: string; dispensaries?: string }>(invite, async (_args, options) =>
    (await actions()).invite(options, settingsOf(invite)),
  );
  jsonAction(
    command.command('list').description('list accounts (never their passwords)'),
    async (_args, options) => (await actions()).list(options),
  );
  jsonAction<{ role?: string; dispensaries?: string }>(
    command
      .command('change')
      .description('change an account’s role or dispensaries')
      .argument('<email>', 'the account’s email')
      .option('--role <role>', 'operator, manager or staff')
      .option(...DISPENSARIES),
    async ([email], options) => (await actions()).change(email!, options),
  );
  jsonAction(
    command
      .command('remove')
      .description('remove an account; its sessions end at once')
      .argument('<email>', 'the account’s email'),
    async ([email], options) => (await actions()).remove(email!, options),
  );
  const reset = command
    .command('reset-password')
    .description('a new one-time link to choose a password (earlier links stop working)')
    .argument('<email>', 'the account’s email');
  jsonAction(reset, async ([email], options) =>
    (await actions()).resetPassword(email!, options, settingsOf(reset)),
  );
  return command;
}
