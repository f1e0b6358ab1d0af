import { resolve } from 'node:path';
import { DEFAULT_DATABASE, DEFAULT_POOL_SIZE } from '../config.js';
import type { KyselyStore } from './create.js';
import { isPostgresUrl, openPostgresStore, redactUrl } from './postgres/index.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './store.js';
import { isStoreUnavailable, StoreUnavailableError } from './unavailable.js';

export { DEFAULT_DATABASE, DEFAULT_POOL_SIZE };

export interface OpenOptions {
  /** PostgreSQL: the largest number of pooled connections of this process. SQLite ignores it. */
  poolSize?: number;
}

/**
 * Opens the store a database address names: `postgres://` or `postgresql://` selects PostgreSQL;
 * a file path or `sqlite:PATH` selects SQLite. The store is migrated before it is returned.
 */
export async function openStore(
  address: string = DEFAULT_DATABASE,
  options: OpenOptions = {},
): Promise<Store> {
  return openKyselyStore(address, options);
}

/** Like openStore, with the query builder reachable (for whole-database tools such as db copy). */
export async function openKyselyStore(
  address: string = DEFAULT_DATABASE,
  options: OpenOptions = {},
): Promise<KyselyStore> {
  const store = selectStore(address, options);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => {});
    if (isStoreUnavailable(error)) {
      throw new StoreUnavailableError(`The database ${store.location} is unreachable: ${reason(error)}`, {
        cause: error,
      });
    }
    throw error;
  }
  return store;
}

/** The address as logs may show it: PostgreSQL without its password. */
export function describeAddress(address: string): string {
  return isPostgresUrl(address) ? redactUrl(address) : address;
}

export function isPostgresAddress(address: string): boolean {
  return isPostgresUrl(address);
}

function selectStore(address: string, options: OpenOptions): KyselyStore {
  if (isPostgresUrl(address)) {
    return openPostgresStore(address, { poolSize: options.poolSize ?? DEFAULT_POOL_SIZE });
  }
  const path = address.startsWith('sqlite:') ? address.slice('sqlite:'.length) : address;
  return openSqliteStore(path === ':memory:' ? path : resolve(path));
}

function reason(error: unknown): string {
  let current: unknown = error;
  // The innermost message names the socket problem (ECONNREFUSED and the like).
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof AggregateError && current.errors[0] instanceof Error) current = current.errors[0];
  return current instanceof Error && current.message ? current.message : String(current);
}
