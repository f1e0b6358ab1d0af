import { resolve } from 'node:path';
import { DEFAULT_DATABASE, DEFAULT_POOL_SIZE } from '../config.js';
import { isPostgresUrl, redactUrl } from './address.js';
import type { KyselyStore } from './create.js';
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
  const store = await selectStore(address, options);
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

/** Loads only the driver the address needs: pg alone is some thirty modules a SQLite command never uses. */
async function selectStore(address: string, options: OpenOptions): Promise<KyselyStore> {
  if (isPostgresUrl(address)) {
    const { openPostgresStore } = await import('./postgres/index.js');
    return openPostgresStore(address, { poolSize: options.poolSize ?? DEFAULT_POOL_SIZE });
  }
  const { openSqliteStore } = await import('./sqlite/index.js');
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
