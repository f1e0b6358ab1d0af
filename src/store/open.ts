import { resolve } from 'node:path';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './store.js';

export const DEFAULT_DATABASE = './data/menu.db';

/**
 * Opens the store a database address names: a file path or `sqlite:PATH` selects SQLite.
 * The store is migrated before it is returned.
 */
export async function openStore(address: string = DEFAULT_DATABASE): Promise<Store> {
  const store = selectStore(address);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

function selectStore(address: string): Store {
  if (/^postgres(ql)?:\/\//i.test(address)) {
    throw new Error('PostgreSQL is not supported yet: use a SQLite file path or sqlite:PATH');
  }
  const path = address.startsWith('sqlite:') ? address.slice('sqlite:'.length) : address;
  return openSqliteStore(path === ':memory:' ? path : resolve(path));
}
