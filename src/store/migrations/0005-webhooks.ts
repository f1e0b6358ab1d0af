import type { Kysely } from 'kysely';
import { autoIncrementKey } from './portable.js';

/**
 * Webhook subscriptions and their outbox: one delivery per change and endpoint, written in the
 * change's own transaction, and the history of each delivery's attempts.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('credential_id', 'integer', (col) =>
      col.notNull().references('credentials.id').onDelete('cascade'),
    )
    .addColumn('dispensary_id', 'integer', (col) =>
      col.notNull().references('dispensaries.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (col) => col.notNull())
    // JSON array of change types, or null for every type.
    .addColumn('events', 'text')
    .addColumn('enabled', 'integer', (col) => col.notNull())
    // AES-256-GCM of the signing secret; the key is not in the database.
    .addColumn('secret_ciphertext', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('failing_since', 'text')
    .addColumn('disabled_reason', 'text')
    .execute();
  await db.schema.createIndex('webhooks_dispensary').on('webhooks').column('dispensary_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    // msg_…: the webhook-id header, the same on every attempt.
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('webhook_id', 'integer', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('dispensary_id', 'integer', (col) => col.notNull())
    // The change's cursor (menu_changes.seq): deliveries to one endpoint go in this order.
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('next_attempt_at', 'text', (col) => col.notNull())
    // Set by the process delivering it; an expired lease (a killed process) is claimed again.
    .addColumn('lease_until', 'text')
    .addColumn('claim', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_latency_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_response', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_queue')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'status', 'seq'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('delivery_id', 'text', (col) =>
      col.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (col) => col.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .column('delivery_id')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
