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
  menu_changes: MenuChangeTable;
  admin_keys: AdminKeyTable;
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeyTable;
  accounts: AccountTable;
  account_links: AccountLinkTable;
  console_sessions: ConsoleSessionTable;
  account_passkeys: AccountPasskeyTable;
  passkey_challenges: PasskeyChallengeTable;
  account_totp: AccountTotpTable;
  account_recovery_codes: AccountRecoveryCodeTable;
  pending_sign_ins: PendingSignInTable;
  integrators: IntegratorTable;
  integrator_access: IntegratorAccessTable;
  usage_counts: UsageCountTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  specials: SpecialTable;
  special_boundaries: SpecialBoundaryTable;
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
  /** JSON text of the menus it sells from (["rec", "med"]), or null when not said (0018). */
  menu_types: string | null;
  /** The token before the last rotation, accepted until previous_token_expires_at. */
  previous_token_digest: string | null;
  previous_token_expires_at: string | null;
  /** 1 when the dispensary's public pages are on (0008-publishing). */
  published: Generated<number>;
  /** Where its public pages live (/m/SLUG); unique, null until first published. */
  slug: string | null;
  /** 1 when public pages show stock quantities, not only in stock or sold out. */
  show_stock: Generated<number>;
  /** 1 (default) when a special's regular price is shown struck through (0019). */
  show_regular_price: Generated<number>;
  /** 1 (default) when the public pages show potency badges (0019). */
  show_potency: Generated<number>;
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

export type ItemTable = Flat<
  { dispensary_id: number } & ItemColumns & {
      updated_at: string;
      /**
       * The item's canonical JSON without its price entries, after the version of the field list it
       * was written for (item-rows.ts, fieldsJsonOf): what the live feed of a stock change keeps of the
       * item. Null, or of another version, until the item is next written (0011-item-fields-json).
       */
      fields_json: string | null;
    }
>;

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

/**
 * The live menu feed: what entered, changed in or left each dispensary's active menu, numbered in
 * commit order (`seq`, the cursor clients follow; at most 2^53 - 1, see 0012-feed-cursor-range).
 * Written by Writer with the write's change notice.
 */
export interface MenuChangeTable {
  seq: Generated<number>;
  dispensary_id: number;
  at: string;
  /** 'item.upserted' | 'item.removed' | 'store.updated'. */
  type: string;
  item_id: number | null;
  /** 'deleted' | 'deactivated' on removals, else null. */
  reason: string | null;
  /** The canonical item JSON after the change, on item.upserted; else null. */
  item: string | null;
}

export interface AdminKeyTable {
  id: Generated<number>;
  name: string;
  /** `all` or `dispensary:ID`. */
  scope: string;
  key_digest: string;
  created_at: string;
  revoked_at: string | null;
  /** The last request it authorized, to the minute; null when never used. */
  last_used_at: string | null;
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

/** A person: see docs/accounts.md. */
export interface AccountTable {
  id: Generated<number>;
  /** Lower case, unique. */
  email: string;
  /** scrypt, as credentials' passwords; null until the invitation is accepted. */
  password_digest: string | null;
  role: string;
  /** JSON array of the dispensary ids a manager or staff account covers. */
  dispensary_ids: string;
  created_at: string;
  updated_at: string;
  /** The single sign-on identity (issuer and subject) it signs in with; null: none yet. */
  sso_identity: string | null;
}

/** A one-time link (invitation or password reset): the SHA-256 digest of its secret, never the secret. */
export interface AccountLinkTable {
  digest: string;
  account_id: number;
  /** `invite` or `reset`. */
  purpose: string;
  created_at: string;
  expires_at: string;
}

/** A passkey of an account: the authenticator's credential id and public key (see docs/accounts.md). */
export interface AccountPasskeyTable {
  id: Generated<number>;
  account_id: number;
  /** base64url; unique. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  sign_count: number;
  /** JSON array of transports. */
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** A WebAuthn challenge under way: used once, until it expires. */
export interface PasskeyChallengeTable {
  challenge: string;
  /** `register` or `sign_in`. */
  purpose: string;
  /** The account registering; null for a sign-in. */
  account_id: number | null;
  expires_at: string;
}

/** An account's TOTP second factor: the secret encrypted, never in the clear. */
export interface AccountTotpTable {
  account_id: number;
  secret: string;
  confirmed_at: string | null;
  last_step: number;
  created_at: string;
}

/** A recovery code: its SHA-256 digest, used once. */
export interface AccountRecoveryCodeTable {
  digest: string;
  account_id: number;
  used_at: string | null;
}

/** A sign-in whose password was right, waiting for its second factor: the digest of its token. */
export interface PendingSignInTable {
  digest: string;
  account_id: number;
  expires_at: string;
}

/** A console sign-in: the SHA-256 digest of the session id in the cookie, never the id itself. */
export interface ConsoleSessionTable {
  id_digest: string;
  /** The admin key the session acts as, or null for an account's session. */
  admin_key_id: number | null;
  /** The account signed in, or null for an admin key's session. */
  account_id: number | null;
  created_at: string;
  /** Renewed at most once a minute while the session is used; the idle timeout counts from it. */
  last_seen_at: string;
  /** The absolute end of the session, whatever its use. */
  expires_at: string;
}

/** Requests per credential per hour, flushed from memory at most once a minute. */
export interface UsageCountTable {
  username: string;
  /** The hour's start, ISO 8601 (2026-11-26T10:00:00.000Z). */
  hour: string;
  requests: number;
}

/** A subscription of an integrator's credential to one dispensary's changes. */
export interface WebhookTable {
  id: Generated<number>;
  credential_id: number;
  dispensary_id: number;
  url: string;
  /** JSON array of change types, or null for every type. */
  events: string | null;
  /** 0 or 1. */
  enabled: number;
  /** The signing secret, AES-256-GCM encrypted with a key kept outside the database. */
  secret_ciphertext: string;
  created_at: string;
  updated_at: string;
  /** When the endpoint began failing every delivery; null while it succeeds. */
  failing_since: string | null;
  disabled_reason: string | null;
  /** The request form whose item shape deliveries carry: a, b or v1. */
  form: string;
}

/** The outbox: one row per change and endpoint, written in the change's transaction. */
export interface WebhookDeliveryTable {
  /** `msg_…`, sent as the webhook-id header. */
  id: string;
  webhook_id: number;
  dispensary_id: number;
  /** The change's cursor. */
  seq: number;
  type: string;
  /** pending, delivered or failed. */
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  claim: string | null;
  last_status: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  last_response: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** One attempt of a delivery. */
export interface WebhookAttemptTable {
  id: Generated<number>;
  delivery_id: string;
  at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/** A special of a dispensary: a lower price for the items it targets, while its schedule says so. */
export interface SpecialTable {
  id: Generated<number>;
  dispensary_id: number;
  name: string;
  description: string;
  /** percent_off, amount_off or fixed_price. */
  kind: string;
  /** Cents (amount_off, fixed_price) or hundredths of a percent (percent_off). */
  value_hundredths: number;
  /** JSON object of target lists, as the sync API spells them (applies_to). */
  applies_to: string;
  /** rec, med or both. */
  menu_type: string;
  /** ISO 8601 UTC, or null for no limit. */
  starts_at: string | null;
  ends_at: string | null;
  /** JSON array of weekdays, or null for every day. */
  days_of_week: string | null;
  /** HH:MM in the store's time zone, or null (both null: all day). */
  daily_start: string | null;
  daily_end: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * A special boundary of a dispensary that a process has recorded in the live feed: its key makes the
 * claim, in the transaction of the feed entries, so that several processes record it once.
 */
export interface SpecialBoundaryTable {
  dispensary_id: number;
  /** The boundary, ISO 8601 UTC. */
  at: string;
  recorded_at: string;
}

/** An integrator's registration (src/store/migrations/0023-integrators.ts): its account is `account_id`. */
export interface IntegratorTable {
  account_id: number;
  name: string;
  company: string;
  /** What it builds, in its own words. */
  building: string;
  status: string;
  /** scrypt of the password it chose, until approval moves it to the account. */
  pending_password: string | null;
  confirm_digest: string | null;
  confirm_expires_at: string | null;
  credential_username: string | null;
  created_at: string;
  updated_at: string;
}

/** An integrator's request to read a dispensary, decided by the dispensary's managers. */
export interface IntegratorAccessTable {
  id: Generated<number>;
  account_id: number;
  dispensary_id: number;
  status: string;
  decided_by: string | null;
  /** SHA-256 of the integrator's own token for this dispensary; null until it asks for one. */
  token_digest: string | null;
  created_at: string;
  updated_at: string;
}
