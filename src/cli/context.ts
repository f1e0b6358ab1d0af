import { DEFAULT_POOL_SIZE } from '../config.js';
import { type ItemRef, parseItemRef } from '../domain/item-ref.js';
import { ServiceError } from '../services/errors.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { CommonOptions } from './options.js';
import { emitList, fail, type ListView } from './output.js';

/**
 * Runs a command's work with one service over the selected database, and reports any failure. Each
 * command makes only the service it uses (not createServices' whole set): a command loads no more code
 * than it runs, which keeps `menu-api dispensary list` quick.
 */
export async function withService<Service>(
  options: CommonOptions,
  make: (store: Store) => Service,
  work: (service: Service) => Promise<void>,
  /** `read`: the command only reads, so a missing SQLite file is an error, never a new database. */
  access: 'read' | 'write' = 'write',
): Promise<void> {
  let store: Store | undefined;
  try {
    store = await openStore(options.db, {
      poolSize: Number(options.dbPoolSize ?? DEFAULT_POOL_SIZE),
      missing: access === 'read' ? 'refuse' : 'create',
      onCreate: sayCreated,
    });
    await work(make(store));
  } catch (error) {
    fail(options, error);
  } finally {
    await store?.close();
  }
}

/** A list command's work: reading the entries with one service, then printing them as `view` says. */
export function listAction<Service, Entry>(
  make: (store: Store) => Service,
  read: (service: Service) => Promise<Entry[]>,
  view: ListView<Entry>,
): (options: CommonOptions) => Promise<void> {
  return (options) =>
    withService(options, make, async (service) => emitList(options, await read(service), view), 'read');
}

export function parseId(value: string, what: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1) {
    throw new ServiceError('invalid_request', `${what} must be a positive whole number, not "${value}".`);
  }
  return Number(value);
}

/** The item an --item option names: its id, or `ext:` and its external_id. */
export function parseItem(value: string): ItemRef {
  const ref = parseItemRef(value);
  if (!ref) {
    throw new ServiceError(
      'invalid_request',
      `The item must be its id (a positive whole number) or ext: and its external_id (ext:pos-10442), not "${value}".`,
    );
  }
  return ref;
}

/** What a command that created a missing SQLite file says on stderr (whatever --json says on stdout). */
export function sayCreated(path: string): void {
  process.stderr.write(`Created a new database at ${path}\n`);
}
