import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as initial from './0001-initial.js';
import * as sync from './0002-sync.js';
import * as access from './0003-access.js';
import * as menuFeed from './0004-menu-feed.js';
import * as webhooks from './0005-webhooks.js';
import * as consoleSessions from './0007-console.js';
import * as publishing from './0008-publishing.js';
import * as adminKeyUse from './0009-admin-key-use.js';
import * as stockInPlace from './0010-stock-in-place.js';
import * as itemFieldsJson from './0011-item-fields-json.js';
import * as feedCursorRange from './0012-feed-cursor-range.js';
import * as richItem from './0013-rich-item.js';
import * as specials from './0014-specials.js';
import * as accounts from './0015-accounts.js';
import * as externalIdMenuTypes from './0018-external-id-menu-types.js';
import * as publicSwitches from './0019-public-switches.js';
import * as accountSso from './0020-account-sso.js';
import * as passkeys from './0021-passkeys.js';
import * as secondFactor from './0022-second-factor.js';
import * as integrators from './0023-integrators.js';
import * as longTextsLz4 from './0024-long-texts-lz4.js';
import * as webhookForm from './0026-webhook-form.js';

/** Migrations are listed in code (not read from a folder) so that the built package needs no file scanning. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-sync': sync,
  '0003-access': access,
  '0004-menu-feed': menuFeed,
  '0005-webhooks': webhooks,
  '0007-console': consoleSessions,
  '0008-publishing': publishing,
  '0009-admin-key-use': adminKeyUse,
  '0010-stock-in-place': stockInPlace,
  '0011-item-fields-json': itemFieldsJson,
  '0012-feed-cursor-range': feedCursorRange,
  '0013-rich-item': richItem,
  '0014-specials': specials,
  '0015-accounts': accounts,
  '0018-external-id-menu-types': externalIdMenuTypes,
  '0019-public-switches': publicSwitches,
  '0020-account-sso': accountSso,
  '0021-passkeys': passkeys,
  '0022-second-factor': secondFactor,
  '0023-integrators': integrators,
  '0024-long-texts-lz4': longTextsLz4,
  '0026-webhook-form': webhookForm,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
function migratorFor(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
}

/** Names of this version's migrations that the database has not run yet (read only; it writes nothing). */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrations = await migratorFor(db).getMigrations();
  return migrations
    .filter((migration) => migration.executedAt === undefined)
    .map((migration) => migration.name);
}

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = migratorFor(db);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, {
      cause: error,
    });
  }
}

export const LATEST_MIGRATION = Object.keys(migrations).at(-1)!;
