import type { Transaction } from 'kysely';
import type { MenuItem, MenuItemInput, StockUpdate } from '../domain/item.js';
import type { RemovalReason } from '../domain/menu-writes.js';
import type { Publishing, PublishingPatch } from '../domain/publishing.js';
import type { StoreInfo, StoreInfoPatch } from '../domain/store-info.js';
import type { Database } from './schema.js';

export interface Dispensary {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** Set when a lookup matched the token before the last rotation: it works until then. */
  tokenExpiresAt?: string;
}

/** A dispensary found by its slug, with its publishing state (published or not). */
export interface PublishedDispensary extends Publishing {
  id: number;
}

export interface DispensarySummary extends Dispensary, Publishing {
  itemCount: number;
  activeItemCount: number;
}

export interface Credential {
  id: number;
  username: string;
  passwordHash: string;
  createdAt: string;
  revokedAt: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** The dispensaries this credential may read; null for every dispensary. */
  dispensaryIds: number[] | null;
}

export interface CredentialLimits {
  expiresAt?: string | null;
  dispensaryIds?: number[] | null;
}

/** What a change notice says changed, so that a process drops only what it cached of that. */
export type ChangeKind = 'menu' | 'dispensary' | 'store' | 'credential' | 'admin_key' | 'webhook';

export interface Change {
  seq: number;
  kind: ChangeKind;
  dispensaryId: number | null;
  /** For credential changes, the username. */
  subject: string | null;
}

/** What a change of the live menu feed says: see the README, "Live menus". */
export type MenuChangeType = 'item.upserted' | 'item.removed' | 'store.updated';

export type { RemovalReason };

/**
 * One change of a dispensary's live menu feed, as stored: `seq` is its cursor (commit order), `item`
 * the canonical item JSON text (src/domain/canonical.ts) after the change, on `item.upserted` only.
 */
export interface MenuChange {
  seq: number;
  dispensaryId: number;
  at: string;
  type: MenuChangeType;
  itemId: number | null;
  reason: RemovalReason | null;
  item: string | null;
}

/**
 * Runs inside a write's transaction right after its feed changes were inserted, with those rows (never
 * called for a write that made none). What it writes commits or rolls back with the change (an outbox).
 */
export type FeedHook = (trx: Transaction<Database>, rows: readonly MenuChange[]) => Promise<void>;

/** Raised for a write that would break a uniqueness rule (a username that exists, say). */
export class ConflictError extends Error {}

/** Raised when stock updates name price entries that do not exist; nothing was written. */
export class UnmatchedStockError extends Error {
  constructor(readonly unmatched: number[]) {
    super(
      `${unmatched.length} ${unmatched.length === 1 ? 'stock update matches' : 'stock updates match'} no price entry`,
    );
  }
}

export interface AdminKey {
  id: number;
  name: string;
  /** `all`, or `dispensary:ID` for a key that may touch only that dispensary. */
  scope: string;
  createdAt: string;
  revokedAt: string | null;
  /** The last request it authorized, to the minute; null when never used. */
  lastUsedAt: string | null;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  dispensaryId: number | null;
  action: string;
  detail: Record<string, unknown>;
}

export interface AuditQuery {
  dispensaryId?: number;
  /** Exactly this actor (`cli`, `key:NAME`). */
  actor?: string;
  since?: string;
  /** Entries before this time only. */
  until?: string;
  limit: number;
}

export interface IdempotentAnswer {
  requestDigest: string;
  status: number;
  response: string;
  createdAt: string;
}

/** Who made a write, for the audit log: `cli`, or `key:NAME` for an admin key. */
export type Actor = string;

export interface UpsertResult {
  created: number[];
  updated: number[];
}

/**
 * Everything the service keeps: one repository per aggregate, over one database. Every repository
 * method that writes is one transaction and, when it changes something, records a change notice and
 * an audit entry in it (see write.ts).
 */
export interface Store {
  /** Where the data lives, without secrets, for logs and messages. */
  readonly location: string;
  readonly dispensaries: DispensaryRepository;
  readonly credentials: CredentialRepository;
  readonly menus: MenuRepository;
  readonly adminKeys: AdminKeyRepository;
  readonly audit: AuditRepository;
  readonly changes: ChangeRepository;
  readonly menuChanges: MenuChangeRepository;
  readonly idempotency: IdempotencyRepository;
  readonly consoleSessions: ConsoleSessionRepository;
  readonly usage: UsageRepository;
  readonly webhooks: WebhookRepository;
  /**
   * Registers a hook every write that records live feed changes runs in its transaction, after
   * inserting them (see FeedHook). Register before the first write; hooks run in registration order.
   */
  afterFeed(hook: FeedHook): void;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Throws, with the reason, unless the database answers and every migration has run (for /readyz). */
  checkReady(): Promise<void>;
  /**
   * Optional: calls onNotice when another process may have written (PostgreSQL LISTEN/NOTIFY), and
   * after every reconnection. Resolves to a function that stops listening. Stores without it are polled.
   */
  listen?(onNotice: () => void): Promise<() => Promise<void>>;
}

/** Dispensaries, their tokens and their store information. */
export interface DispensaryRepository {
  create(name: string, tokenDigest: string, actor?: Actor): Promise<Dispensary>;
  get(id: number): Promise<Dispensary | undefined>;
  /** By the current token, or by the previous one until it expires (then with `tokenExpiresAt`). */
  findByTokenDigest(digest: string): Promise<Dispensary | undefined>;
  list(): Promise<DispensarySummary[]>;
  /** Replaces the token; the old one keeps working until `previousValidUntil` (now: at once). */
  setToken(id: number, digest: string, actor?: Actor, previousValidUntil?: string): Promise<boolean>;
  /** Removes the dispensary with its menu. */
  remove(id: number, actor?: Actor): Promise<boolean>;
  getStoreInfo(dispensaryId: number): Promise<StoreInfo | undefined>;
  /** Like `getStoreInfo`, with the live feed's head taken in the same snapshot. */
  getStoreInfoAt(dispensaryId: number): Promise<{ info: StoreInfo; cursor: number } | undefined>;
  updateStoreInfo(dispensaryId: number, patch: StoreInfoPatch, actor?: Actor): Promise<StoreInfo | undefined>;
  getPublishing(dispensaryId: number): Promise<Publishing | undefined>;
  /**
   * Sets the publishing fields present, and the store fields of `storePatch`, in one transaction; a
   * slug another dispensary has is a ConflictError. Change kind `dispensary`.
   */
  setPublishing(
    dispensaryId: number,
    patch: PublishingPatch,
    actor?: Actor,
    storePatch?: StoreInfoPatch,
  ): Promise<Publishing | undefined>;
  /** The dispensary with that slug, published or not. */
  findBySlug(slug: string): Promise<PublishedDispensary | undefined>;
}

/** API credentials (username and password hash); usernames are never reused, even after revoke. */
export interface CredentialRepository {
  create(
    username: string,
    passwordHash: string,
    actor?: Actor,
    limits?: CredentialLimits,
  ): Promise<Credential>;
  /** Records a successful use (not a change: no notice, no audit entry). */
  touch(username: string, at: string): Promise<void>;
  /** The credential with that username, revoked or not. */
  find(username: string): Promise<Credential | undefined>;
  list(): Promise<Credential[]>;
  revoke(username: string, actor?: Actor): Promise<boolean>;
}

/** Each dispensary's menu: items, their price entries and the entries' stock levels. */
export interface MenuRepository {
  /** Replaces the whole menu in one transaction; items without an id get fresh ones. Returns the new menu. */
  replace(dispensaryId: number, items: MenuItemInput[], actor?: Actor): Promise<MenuItem[]>;
  /** Creates or replaces the given items by id, in one transaction; the rest of the menu stays. */
  upsertItems(dispensaryId: number, items: MenuItemInput[], actor?: Actor): Promise<UpsertResult>;
  deleteItem(dispensaryId: number, itemId: number, actor?: Actor): Promise<boolean>;
  /** Every item, active or not, ordered by id, read as one consistent snapshot. */
  read(dispensaryId: number): Promise<MenuItem[]>;
  /** Like `read`, with the live feed's head taken in the same snapshot: the cursor the menu is at. */
  readAt(dispensaryId: number): Promise<{ items: MenuItem[]; cursor: number }>;
  /**
   * What changed in the menu after feed cursor `after`: the item ids the feed names, those items as
   * they are now, and the head, in one snapshot; undefined when those changes are no longer all kept.
   */
  readChangedSince(
    dispensaryId: number,
    after: number,
  ): Promise<{ itemIds: number[]; items: MenuItem[]; cursor: number } | undefined>;
  setItemActive(dispensaryId: number, itemId: number, active: boolean, actor?: Actor): Promise<boolean>;
  /** Sets every stock level in one transaction, or none: throws UnmatchedStockError naming the misses. */
  setStock(dispensaryId: number, updates: StockUpdate[], actor?: Actor): Promise<number>;
}

/** Keys of the admin API. */
export interface AdminKeyRepository {
  create(name: string, scope: string, keyDigest: string, actor?: Actor): Promise<AdminKey>;
  /** An unrevoked admin key with that digest. */
  find(keyDigest: string): Promise<AdminKey | undefined>;
  /** An unrevoked admin key with that id. */
  get(id: number): Promise<AdminKey | undefined>;
  list(): Promise<AdminKey[]>;
  revoke(name: string, actor?: Actor): Promise<boolean>;
  /** Records that the key was used at `at` (not a recorded write: no change notice, no audit entry). */
  touch(id: number, at: string): Promise<void>;
}

/** Who changed what: written by every recorded write, read here. */
export interface AuditRepository {
  /** The latest `limit` entries that match, oldest first. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
}

/** The change notices every recorded write leaves, for other processes' caches. */
export interface ChangeRepository {
  since(seq: number): Promise<Change[]>;
  lastSeq(): Promise<number>;
}

/** A page of a dispensary's live feed, read as one snapshot. */
export interface MenuChangePage {
  /** Changes with a cursor after the one asked for, oldest first, at most `limit`. */
  changes: MenuChange[];
  /** The cursor of the newest change of every dispensary, when the page was read (0: none yet). */
  head: number;
  /** The oldest change still kept, of any dispensary (undefined: none kept). */
  oldest: number | undefined;
}

/** The live menu feed (written by Writer with each write's change notice); read and pruned here. */
export interface MenuChangeRepository {
  /** The dispensary's changes after `after` (a seq; 0 for the start), at most `limit`, in one snapshot. */
  page(dispensaryId: number, after: number, limit: number): Promise<MenuChangePage>;
  /** Every dispensary's changes after `after`, at most `limit`, oldest first (for the live hub). */
  since(after: number, limit: number): Promise<MenuChange[]>;
  /** The cursor of the newest change of every dispensary (0: none). */
  head(): Promise<number>;
  /**
   * Deletes changes recorded before `before` (ISO time), `batch` rows per statement; the newest change
   * is always kept, so that the oldest kept one tells which cursors expired. Returns the rows deleted.
   */
  prune(before: string, batch?: number): Promise<number>;
}

/** Answers kept for retried admin requests that carry an Idempotency-Key. */
export interface IdempotencyRepository {
  find(adminKeyId: number, key: string, notBefore: string): Promise<IdempotentAnswer | undefined>;
  /** Saves the answer, replacing an expired one under the same key; a live one already there is kept. */
  save(adminKeyId: number, key: string, answer: IdempotentAnswer): Promise<void>;
  /** Records the answer of a write that claimed the key in its own transaction (idempotency-claim.ts). */
  complete(
    adminKeyId: number,
    key: string,
    answer: Pick<IdempotentAnswer, 'status' | 'response'>,
  ): Promise<void>;
  /** Drops a claim whose write answered with an error: the key may be used again. */
  release(adminKeyId: number, key: string): Promise<void>;
  deleteBefore(before: string): Promise<void>;
}

/** A console sign-in, found by the digest of the id its cookie carries. */
export interface ConsoleSession {
  idDigest: string;
  adminKeyId: number;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** Console sessions: bookkeeping (no change notice, no audit entry). */
export interface ConsoleSessionRepository {
  create(session: ConsoleSession): Promise<void>;
  find(idDigest: string): Promise<ConsoleSession | undefined>;
  /** Records use, for the idle timeout. */
  touch(idDigest: string, at: string): Promise<void>;
  remove(idDigest: string): Promise<boolean>;
  /** Deletes the sessions past their absolute end or idle since before `idleBefore`. */
  removeEnded(expiredBefore: string, idleBefore: string): Promise<void>;
}

/** Requests of one credential in one hour. */
export interface UsageCount {
  username: string;
  /** The hour's start, ISO 8601. */
  hour: string;
  requests: number;
}

/** Request counters per credential and hour, added to in batches. */
export interface UsageRepository {
  /** Adds each count to its row (created at 0), in one transaction. */
  add(counts: readonly UsageCount[]): Promise<void>;
  /** Every row from that hour on, oldest first. */
  since(hour: string): Promise<UsageCount[]>;
}

/** The change types a webhook may subscribe to (those of the change feed). */
export const WEBHOOK_EVENTS = ['item.upserted', 'item.removed', 'store.updated'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A subscription of an integrator's credential to one dispensary's changes. */
export interface Webhook {
  id: number;
  /** The credential's username. */
  credential: string;
  dispensaryId: number;
  url: string;
  /** The change types sent; null for every type. */
  events: WebhookEvent[] | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Since when every delivery has failed; null while the endpoint answers. */
  failingSince: string | null;
  /** Why the endpoint was disabled (by the dispatcher), or null. */
  disabledReason: string | null;
}

export interface NewWebhook {
  credentialId: number;
  dispensaryId: number;
  url: string;
  events: WebhookEvent[] | null;
  secretCiphertext: string;
}

export interface WebhookPatch {
  url?: string;
  events?: WebhookEvent[] | null;
  enabled?: boolean;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  at: string;
  /** The answer's status, or null when there was none (refused, timed out). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookDelivery {
  /** Sent as the webhook-id header. */
  id: string;
  webhookId: number;
  /** The change's cursor. */
  seq: number;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  /** When a pending delivery is next tried. */
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** The first few KiB of the last answer. */
  lastResponse: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attemptLog: WebhookAttempt[];
}

/** A delivery claimed by this process until `leaseUntil`. */
export interface ClaimedDelivery {
  id: string;
  webhookId: number;
  dispensaryId: number;
  seq: number;
  type: string;
  attempts: number;
  claim: string;
  url: string;
  secretCiphertext: string;
  /** The change it carries; undefined when it is no longer kept (past the feed's retention). */
  change: MenuChange | undefined;
}

/** What one attempt found out, and what follows. */
export interface AttemptResult extends WebhookAttempt {
  response: string | null;
  /** delivered; retry at this time; or failed for good. */
  outcome: { status: 'delivered' } | { status: 'retry'; at: string } | { status: 'failed' };
}

/** Subscriptions, and the outbox of deliveries the dispatcher works through. */
export interface WebhookRepository {
  create(webhook: NewWebhook, actor?: Actor): Promise<Webhook>;
  get(id: number): Promise<Webhook | undefined>;
  /** The encrypted signing secret. */
  secretOf(id: number): Promise<string | undefined>;
  /** Every webhook, or those of one dispensary. */
  list(dispensaryId?: number): Promise<Webhook[]>;
  update(id: number, patch: WebhookPatch, actor?: Actor): Promise<Webhook | undefined>;
  setSecret(id: number, secretCiphertext: string, actor?: Actor): Promise<boolean>;
  remove(id: number, actor?: Actor): Promise<boolean>;
  /** The latest deliveries of a webhook, newest first, each with its attempts. */
  deliveries(webhookId: number, limit: number): Promise<WebhookDelivery[]>;
  delivery(webhookId: number, deliveryId: string): Promise<WebhookDelivery | undefined>;
  /** Makes a delivery pending again, due now, with its attempts kept. */
  retry(webhookId: number, deliveryId: string, actor?: Actor): Promise<WebhookDelivery | undefined>;
  /**
   * Claims due deliveries, each the oldest pending one of its (enabled) endpoint, until `leaseMs` from
   * now: on PostgreSQL FOR UPDATE SKIP LOCKED in one short transaction, so that processes never claim
   * the same one; a lease that ran out (its process died) is claimed again.
   */
  claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a claimed delivery; false when the claim was lost (the lease ran out). */
  record(delivery: ClaimedDelivery, result: AttemptResult): Promise<boolean>;
  /** The earliest future time a pending delivery is due, if any. */
  nextDue(): Promise<string | undefined>;
  /** Webhooks failing every delivery since before `before` and still enabled. */
  failingSince(before: string): Promise<Webhook[]>;
  /** Turns a failing webhook off, audit-logged, if it is still enabled; true when it did. */
  disable(id: number, reason: string, actor?: Actor): Promise<boolean>;
}
