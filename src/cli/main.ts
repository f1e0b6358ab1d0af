import { Command } from 'commander';
import { credentialCommand } from './commands/credential.js';
import { dispensaryCommand } from './commands/dispensary.js';
import { menuCommand } from './commands/menu.js';
import { serveCommand } from './commands/serve.js';
import { databaseOption } from './context.js';

export function buildProgram(): Command {
  const program = new Command('menu-api')
    .description('Dispensary Menu API: run the server and manage dispensaries, credentials and menus')
    .addOption(databaseOption())
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)');
  for (const command of [serveCommand(), dispensaryCommand(), credentialCommand(), menuCommand()]) {
    program.addCommand(command);
  }
  // Commands built on their own do not inherit help settings; every --help should show --db.
  const showGlobals = (command: Command): void => {
    command.configureHelp({ showGlobalOptions: true });
    command.commands.forEach(showGlobals);
  };
  showGlobals(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}
