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
