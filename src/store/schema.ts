import type { Generated } from 'kysely';

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
}

export interface DispensaryTable {
  id: Generated<number>;
  name: string;
  token_digest: string;
  created_at: string;
  updated_at: string;
}

export interface CredentialTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface ItemTable {
  dispensary_id: number;
  id: number;
  name: string;
  brand: string;
  product_type: string;
  product_subtype: string;
  description: string;
  image: string | null;
  cbd: number | null;
  cbn: number | null;
  thc: number | null;
  total_thc: number | null;
  total_cbd: number | null;
  flavors: string;
  effects: string;
  conditions: string;
  active: number;
  updated_at: string;
}

export interface PriceEntryTable {
  dispensary_id: number;
  item_id: number;
  position: number;
  unit: string;
  amount: number;
  price_cents: number;
  stock: number | null;
  updated_at: string;
}

/** An append-only feed of what changed, read by every server process to drop what it cached. */
export interface ChangeTable {
  seq: Generated<number>;
  kind: string;
  dispensary_id: number | null;
  subject: string | null;
  at: string;
}
