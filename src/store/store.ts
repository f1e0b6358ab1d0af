import type { MenuItem, MenuItemInput, StockUpdate } from '../domain/item.js';
import type { Publishing, PublishingPatch } from '../domain/publishing.js';
import type { StoreInfo, StoreInfoPatch } from '../domain/store-info.js';

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

export interface DispensarySummary extends Dispensary {
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
export type ChangeKind = 'menu' | 'dispensary' | 'store' | 'credential' | 'admin_key';

export interface Change {
  seq: number;
  kind: ChangeKind;
  dispensaryId: number | null;
  /** For credential changes, the username. */
  subject: string | null;
}

/** Raised for a write that would break a uniqueness rule (a username that exists, say). */
export class ConflictError extends Error {}

/** Raised when stock updates name price entries that do not exist; nothing was written. */
export class UnmatchedStockError extends Error {
  constructor(readonly unmatched: number[]) {
    super(`${unmatched.length} stock update(s) match no price entry`);
  }
}

export interface AdminKey {
  id: number;
  name: string;
  /** `all`, or `dispensary:ID` for a key that may touch only that dispensary. */
  scope: string;
  createdAt: string;
  revokedAt: string | null;
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
  since?: string;
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
  readonly idempotency: IdempotencyRepository;
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
  setItemActive(dispensaryId: number, itemId: number, active: boolean, actor?: Actor): Promise<boolean>;
  /** Sets every stock level in one transaction, or none: throws UnmatchedStockError naming the misses. */
  setStock(dispensaryId: number, updates: StockUpdate[], actor?: Actor): Promise<number>;
}

/** Keys of the admin API. */
export interface AdminKeyRepository {
  create(name: string, scope: string, keyDigest: string, actor?: Actor): Promise<AdminKey>;
  /** An unrevoked admin key with that digest. */
  find(keyDigest: string): Promise<AdminKey | undefined>;
  list(): Promise<AdminKey[]>;
  revoke(name: string, actor?: Actor): Promise<boolean>;
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

/** Answers kept for retried admin requests that carry an Idempotency-Key. */
export interface IdempotencyRepository {
  find(adminKeyId: number, key: string, notBefore: string): Promise<IdempotentAnswer | undefined>;
  /** Saves the answer, replacing an expired one under the same key. */
  save(adminKeyId: number, key: string, answer: IdempotentAnswer): Promise<void>;
  deleteBefore(before: string): Promise<void>;
}
