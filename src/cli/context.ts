import { type Command, Option } from 'commander';
import { ServiceError } from '../services/errors.js';
import { createServices, type Services } from '../services/index.js';
import { DEFAULT_DATABASE, openStore } from '../store/open.js';
import { fail, type OutputOptions } from './output.js';

/** The database every command uses: --db, then DATABASE_URL, then the default file. */
export function databaseOption(): Option {
  return new Option('--db <address>', 'database: a SQLite file path or sqlite:PATH')
    .env('DATABASE_URL')
    .default(DEFAULT_DATABASE);
}

export function jsonOption(): Option {
  return new Option('--json', 'print the result as JSON for machines');
}

/** Options every command gets, merged from the command and its parents. */
export type CommonOptions = OutputOptions & { db: string };

export function commonOptions<Own extends object = object>(command: Command): CommonOptions & Own {
  return command.optsWithGlobals() as CommonOptions & Own;
}

/** Runs a command's work with the services over the selected database, and reports any failure. */
export async function withServices(
  options: CommonOptions,
  work: (services: Services) => Promise<void>,
): Promise<void> {
  let services: Services | undefined;
  try {
    services = createServices(await openStore(options.db));
    await work(services);
  } catch (error) {
    fail(options, error);
  } finally {
    await services?.store.close();
  }
}

export function parseId(value: string, what: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1) {
    throw new ServiceError('invalid_request', `${what} must be a positive whole number, not "${value}".`);
  }
  return Number(value);
}
