import type { Kysely } from 'kysely';
import { columns, createIndex, dispensaryReference, notNull, ownedBy, withTimestamps } from './columns.js';
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
    .addColumn('credential_id', 'integer', ownedBy('credentials.id'))
    .$call(dispensaryReference)
    .addColumn('url', 'text', notNull)
    // JSON array of change types, or null for every type.
    .addColumn('events', 'text')
    .addColumn('enabled', 'integer', notNull)
    // AES-256-GCM of the signing secret; the key is not in the database.
    .addColumn('secret_ciphertext', 'text', notNull)
    .$call(withTimestamps)
    .addColumn('failing_since', 'text')
    .addColumn('disabled_reason', 'text')
    .execute();
  await createIndex(db, 'webhooks_dispensary', 'webhooks', ['dispensary_id']);

  await db.schema
    .createTable('webhook_deliveries')
    // msg_…: the webhook-id header, the same on every attempt.
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('webhook_id', 'integer', ownedBy('webhooks.id'))
    .addColumn('dispensary_id', 'integer', notNull)
    // The change's cursor (menu_changes.seq): deliveries to one endpoint go in this order.
    .addColumn('seq', 'bigint', notNull)
    .$call(columns('text', ['type', 'status'], notNull))
    .addColumn('attempts', 'integer', notNull)
    .addColumn('next_attempt_at', 'text', notNull)
    // Set by the process delivering it; an expired lease (a killed process) is claimed again.
    .addColumn('lease_until', 'text')
    .addColumn('claim', 'text')
    // The outcome of the latest attempt.
    .$call(columns('integer', ['last_status', 'last_latency_ms']))
    .$call(columns('text', ['last_error', 'last_response']))
    .addColumn('created_at', 'text', notNull)
    .addColumn('delivered_at', 'text')
    .execute();
  await createIndex(db, 'webhook_deliveries_queue', 'webhook_deliveries', ['webhook_id', 'status', 'seq']);
  await createIndex(db, 'webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_at']);

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('delivery_id', 'text', ownedBy('webhook_deliveries.id'))
    .addColumn('at', 'text', notNull)
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', notNull)
    .addColumn('error', 'text')
    .execute();
  await createIndex(db, 'webhook_attempts_delivery', 'webhook_attempts', ['delivery_id']);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
