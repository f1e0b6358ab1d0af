import type { Database } from './schema.js';

/** One table of the schema as whole-database tools see it: its name and its primary key columns. */
export type TableSpec = {
  [T in keyof Database]: { name: T; key: readonly (keyof Database[T] & string)[] };
}[keyof Database];

/**
 * Every table of `Database`, parents before children, with the key that orders its rows.
 * `db copy` writes them in this order (and empties them in the reverse order). Adding a table to
 * `Database` without listing it here fails to compile, so no table is ever left behind by a copy.
 */
export const TABLES = [
  { name: 'dispensaries', key: ['id'] },
  { name: 'credentials', key: ['id'] },
  { name: 'admin_keys', key: ['id'] },
  { name: 'items', key: ['dispensary_id', 'id'] },
  { name: 'price_entries', key: ['dispensary_id', 'item_id', 'position'] },
  { name: 'changes', key: ['seq'] },
  { name: 'menu_changes', key: ['seq'] },
  { name: 'audit_log', key: ['id'] },
  { name: 'idempotency_keys', key: ['admin_key_id', 'idempotency_key'] },
  { name: 'webhooks', key: ['id'] },
  { name: 'webhook_deliveries', key: ['id'] },
  { name: 'webhook_attempts', key: ['id'] },
  { name: 'specials', key: ['id'] },
  { name: 'special_boundaries', key: ['dispensary_id', 'at'] },
  { name: 'accounts', key: ['id'] },
  { name: 'account_links', key: ['digest'] },
  { name: 'console_sessions', key: ['id_digest'] },
  { name: 'account_passkeys', key: ['id'] },
  { name: 'passkey_challenges', key: ['challenge'] },
  { name: 'account_totp', key: ['account_id'] },
  { name: 'account_recovery_codes', key: ['digest'] },
  { name: 'pending_sign_ins', key: ['digest'] },
  { name: 'integrators', key: ['account_id'] },
  { name: 'integrator_access', key: ['id'] },
  { name: 'usage_counts', key: ['username', 'hour'] },
] as const satisfies readonly TableSpec[];

type Unlisted = Exclude<keyof Database, (typeof TABLES)[number]['name']>;
// A compile error here names a table of Database that TABLES does not list yet.
const everyTableListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTableListed;
