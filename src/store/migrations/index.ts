import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as initial from './0001-initial.js';

/** Migrations are listed in code (not read from a folder) so that the built package needs no file scanning. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, {
      cause: error,
    });
  }
}

export const LATEST_MIGRATION = Object.keys(migrations).at(-1)!;
