import { type Command, Option } from 'commander';

/*
 * What the command definitions need, and nothing heavier: `--help` and usage errors load this, never
 * the services, the store or the server (each command's work is in src/cli/actions/, loaded when it runs).
 */

export interface OutputOptions {
  json?: boolean;
}

export function jsonOption(): Option {
  return new Option('--json', 'print the result as JSON for machines');
}

/** Options every command gets, merged from the command and its parents. */
export type CommonOptions = OutputOptions & { db: string; dbPoolSize?: number };

export function commonOptions<Own extends object = object>(command: Command): CommonOptions & Own {
  return command.optsWithGlobals() as CommonOptions & Own;
}

/**
 * Ends a command's definition the way every command ends: with --json, and an action that gets the
 * command's arguments and its options merged with its parents'.
 */
export function jsonAction<Own extends object = object>(
  command: Command,
  work: (args: string[], options: CommonOptions & Own) => Promise<void>,
): Command {
  return command
    .addOption(jsonOption())
    .action(() => work(command.processedArgs as string[], commonOptions<Own>(command)));
}

/** The work of the secrets the CLI hands out and takes back (admin keys, credentials). */
interface RevocableActions {
  list(options: CommonOptions): Promise<void>;
  revoke(name: string, options: CommonOptions): Promise<void>;
}

/**
 * Adds the `list` and `revoke NAME` subcommands of such a secret, with their help (`argument`: the
 * revoke argument's name and description), and returns the command.
 */
export function addListAndRevoke(
  command: Command,
  actions: () => Promise<RevocableActions>,
  help: { list: string; revoke: string; argument: [string, string] },
): Command {
  jsonAction(command.command('list').description(help.list), async (_args, options) =>
    (await actions()).list(options),
  );
  jsonAction(
    command
      .command('revoke')
      .description(help.revoke)
      .argument(...help.argument),
    async ([name], options) => (await actions()).revoke(name!, options),
  );
  return command;
}
