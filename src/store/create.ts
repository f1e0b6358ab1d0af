import { type Kysely, sql } from 'kysely';
import type { Dialect } from './dialect.js';
import { migrateToLatest, pendingMigrations } from './migrations/index.js';
import { Accounts } from './repositories/accounts.js';
import { AdminKeys } from './repositories/admin-keys.js';
import { AuditLog } from './repositories/audit.js';
import { Changes } from './repositories/changes.js';
import { ConsoleSessions } from './repositories/console-sessions.js';
import { Credentials } from './repositories/credentials.js';
import { Dispensaries } from './repositories/dispensaries.js';
import { IdempotencyKeys } from './repositories/idempotency.js';
import { Integrators } from './repositories/integrators.js';
import { MenuChanges } from './repositories/menu-changes.js';
import { Menus } from './repositories/menus.js';
import { Passkeys } from './repositories/passkeys.js';
import { SecondFactors } from './repositories/second-factors.js';
import { Specials } from './repositories/specials.js';
import { Usage } from './repositories/usage.js';
import { enqueueDeliveries } from './repositories/webhook-outbox.js';
import { Webhooks } from './repositories/webhooks.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import { Writer } from './write.js';

/** A store with its query builder reachable, for whole-database tools (db copy); all else uses the repositories. */
export interface KyselyStore extends Store {
  readonly database: Kysely<Database>;
}

/** The repositories over one dialect's database, and its lifecycle. */
export function createStore(dialect: Dialect): KyselyStore {
  const { db } = dialect;
  const writer = new Writer(dialect);
  // The webhook outbox: every write that records feed changes queues their deliveries in its own
  // transaction, whichever process (server or CLI) makes it.
  writer.afterFeed((trx, rows) => enqueueDeliveries(dialect, trx, rows));
  const listen = dialect.listen?.bind(dialect);
  return {
    location: dialect.location,
    database: db,
    dispensaries: new Dispensaries(dialect, writer),
    credentials: new Credentials(dialect, writer),
    menus: new Menus(dialect, writer),
    adminKeys: new AdminKeys(dialect, writer),
    accounts: new Accounts(dialect, writer),
    integrators: new Integrators(dialect, writer),
    passkeys: new Passkeys(dialect, writer),
    secondFactors: new SecondFactors(dialect, writer),
    audit: new AuditLog(db),
    changes: new Changes(db),
    menuChanges: new MenuChanges(dialect),
    afterFeed: (hook) => writer.afterFeed(hook),
    idempotency: new IdempotencyKeys(db),
    consoleSessions: new ConsoleSessions(db),
    usage: new Usage(db),
    webhooks: new Webhooks(dialect, writer),
    specials: new Specials(dialect, writer),
    ...(listen && { listen }),
    async migrate() {
      const migrate = () => migrateToLatest(db);
      await (dialect.migrationLock ? dialect.migrationLock(migrate) : migrate());
    },
    async close() {
      await dialect.close?.();
      await db.destroy();
    },
    async checkReady() {
      await sql`select 1`.execute(db);
      const pending = await pendingMigrations(db);
      if (pending.length > 0) throw new Error(`migrations not applied: ${pending.join(', ')}`);
    },
  };
}
