import { type Command, Option } from 'commander';
import { MENU_FORMS } from '../forms/index.js';
import { ServiceError } from '../services/errors.js';
import { createServices, type Services } from '../services/index.js';
import { DEFAULT_DATABASE, DEFAULT_POOL_SIZE, openStore } from '../store/open.js';
import { fail, type OutputOptions } from './output.js';

/** The database every command uses: --db, then DATABASE_URL, then the default file. */
export function databaseOption(): Option {
  return new Option('--db <address>', 'database: a SQLite file path, sqlite:PATH, or postgres://USER@HOST/DB')
    .env('DATABASE_URL')
    .default(DEFAULT_DATABASE);
}

/** PostgreSQL connection pool size of each process (SQLite ignores it). */
export function poolSizeOption(): Option {
  return new Option('--db-pool-size <n>', 'PostgreSQL: most connections per process')
    .env('DATABASE_POOL_SIZE')
    .default(DEFAULT_POOL_SIZE)
    .argParser((value) => {
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 1 || parsed > 1000) {
        throw new Error(`--db-pool-size must be a whole number from 1 to 1000, not "${value}"`);
      }
      return parsed;
    });
}

export function jsonOption(): Option {
  return new Option('--json', 'print the result as JSON for machines');
}

/** Options every command gets, merged from the command and its parents. */
export type CommonOptions = OutputOptions & { db: string; dbPoolSize?: number };

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
    services = createServices(
      await openStore(options.db, { poolSize: Number(options.dbPoolSize ?? DEFAULT_POOL_SIZE) }),
      MENU_FORMS,
    );
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
