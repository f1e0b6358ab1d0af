import { Command } from 'commander';
import { VERSION } from '../util/package-files.js';
import { accountCommand } from './commands/account.js';
import { adminKeyCommand } from './commands/admin-key.js';
import { auditCommand } from './commands/audit.js';
import { credentialCommand } from './commands/credential.js';
import { dbCommand } from './commands/db.js';
import { dispensaryCommand } from './commands/dispensary.js';
import { integratorCommand } from './commands/integrator.js';
import { inventoryCommand } from './commands/inventory.js';
import { menuCommand } from './commands/menu.js';
import { serveCommand } from './commands/serve.js';
import { specialCommand } from './commands/special.js';
import { webhookCommand } from './commands/webhook.js';
import { addSettingOptions } from './settings-options.js';

/**
 * The whole program's commands and options. Building it loads only commander, the settings table and
 * the command definitions: a command's work (src/cli/actions/) is imported when that command runs.
 */
export function buildProgram(): Command {
  const program = addSettingOptions(
    new Command('menu-api').description(
      'Dispensary Menu API: run the server and manage dispensaries, credentials and menus',
    ),
    'global',
  )
    .version(VERSION, '-V, --version', 'print the version and exit')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)');
  for (const command of [
    serveCommand(),
    dispensaryCommand(),
    credentialCommand(),
    menuCommand(),
    inventoryCommand(),
    adminKeyCommand(),
    accountCommand(),
    integratorCommand(),
    webhookCommand(),
    specialCommand(),
    auditCommand(),
    dbCommand(),
  ]) {
    program.addCommand(command);
  }
  // Commands built on their own do not inherit help settings; every --help should show --db,
  // and every usage error should say where the usage is.
  const showGlobals = (command: Command): void => {
    command.configureHelp({ showGlobalOptions: true });
    command.showHelpAfterError('(run with --help for usage)');
    command.commands.forEach(showGlobals);
  };
  showGlobals(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}
