import type { Generated } from 'kysely';
import type { ColumnsOf, ITEM_FIELDS, PRICE_FIELDS } from '../domain/item-schema.js';

/**
 * Table types for Kysely. Column types are chosen to mean the same on every dialect:
 * booleans are 0/1 integers, times are ISO-8601 text, lists are JSON text.
 */
export interface Database {
  dispensaries: DispensaryTable;
  credentials: CredentialTable;
  items: ItemTable;
  price_entries: PriceEntryTable;
  changes: ChangeTable;
  admin_keys: AdminKeyTable;
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeyTable;
}

export interface DispensaryTable {
  id: Generated<number>;
  name: string;
  token_digest: string;
  created_at: string;
  updated_at: string;
  address: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  phone: string | null;
  email: string | null;
  website: string | null;
  timezone: string | null;
  license_number: string | null;
  currency: string;
  /** JSON text of the weekly hours, or null when unknown. */
  hours: string | null;
  logo: string | null;
  /** The token before the last rotation, accepted until previous_token_expires_at. */
  previous_token_digest: string | null;
  previous_token_expires_at: string | null;
  /** 1 when the dispensary's public pages are on (0008-publishing). */
  published: Generated<number>;
  /** Where its public pages live (/m/SLUG); unique, null until first published. */
  slug: string | null;
  /** 1 when public pages show stock quantities, not only in stock or sold out. */
  show_stock: Generated<number>;
}

export interface CredentialTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  /** JSON array of the dispensary ids this credential may read; null for every dispensary. */
  dispensary_ids: string | null;
}

/** The columns of the item's fields (src/domain/item-schema.ts), and of its price entries'. */
export type ItemColumns = ColumnsOf<typeof ITEM_FIELDS>;
export type PriceColumns = ColumnsOf<typeof PRICE_FIELDS>;

type Flat<T> = { [K in keyof T]: T[K] };

export type ItemTable = Flat<{ dispensary_id: number } & ItemColumns & { updated_at: string }>;

export type PriceEntryTable = Flat<
  { dispensary_id: number; item_id: number; position: number } & PriceColumns & { updated_at: string }
>;

/** An append-only feed of what changed, read by every server process to drop what it cached. */
export interface ChangeTable {
  seq: Generated<number>;
  kind: string;
  dispensary_id: number | null;
  subject: string | null;
  at: string;
}

export interface AdminKeyTable {
  id: Generated<number>;
  name: string;
  /** `all` or `dispensary:ID`. */
  scope: string;
  key_digest: string;
  created_at: string;
  revoked_at: string | null;
}

/** Who changed what, when: never a secret, only names, kinds and counts. */
export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  actor: string;
  dispensary_id: number | null;
  action: string;
  /** JSON text of counts and names, for example {"items": 500}. */
  detail: string;
}

/** First answers to writes sent with an Idempotency-Key, kept for 24 hours. */
export interface IdempotencyKeyTable {
  admin_key_id: number;
  idempotency_key: string;
  request_digest: string;
  status: number;
  /** The first answer's JSON body; answers that carried a secret are stored without it. */
  response: string;
  created_at: string;
}
