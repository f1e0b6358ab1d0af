import { existsSync } from 'node:fs';
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
  /**
   * What to do when the address names a SQLite file that does not exist: `create` it (the default:
   * `serve` and commands that write), or `refuse` with a DatabaseMissingError (commands that only
   * read, and the source of `db copy`: a mistyped path must never become a new empty database).
   */
  missing?: 'create' | 'refuse';
  /** Called with the file's path when a new SQLite file was created, for the caller to say so. */
  onCreate?: (path: string) => void;
}

/** Raised, before anything is created, when a command that only reads names a SQLite file that does not exist. */
export class DatabaseMissingError extends Error {
  constructor(readonly path: string) {
    super(
      `The database file ${path} does not exist. Check --db (or DATABASE_URL): a command that only reads never creates a database; \`npx menu-api serve\` or a command that writes creates one.`,
    );
    this.name = 'DatabaseMissingError';
  }
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
  const created = sqlitePathToCreate(address, options);
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
  if (created !== undefined) options.onCreate?.(created);
  return store;
}

/** The SQLite file this open will create (undefined when it exists, or for PostgreSQL); throws when refused. */
function sqlitePathToCreate(address: string, options: OpenOptions): string | undefined {
  const path = sqlitePath(address);
  if (path === undefined || path === ':memory:' || existsSync(path)) return undefined;
  if (options.missing === 'refuse') throw new DatabaseMissingError(path);
  return path;
}

function sqlitePath(address: string): string | undefined {
  if (isPostgresUrl(address)) return undefined;
  const path = address.startsWith('sqlite:') ? address.slice('sqlite:'.length) : address;
  return path === ':memory:' ? path : resolve(path);
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
  return openSqliteStore(sqlitePath(address) ?? address);
}

function reason(error: unknown): string {
  let current: unknown = error;
  // The innermost message names the socket problem (ECONNREFUSED and the like).
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof AggregateError && current.errors[0] instanceof Error) current = current.errors[0];
  return current instanceof Error && current.message ? current.message : String(current);
}
