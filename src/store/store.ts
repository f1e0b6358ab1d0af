import type { MenuItem, MenuItemInput, StockUpdate } from '../domain/item.js';
import type { StoreInfo, StoreInfoPatch } from '../domain/store-info.js';

export interface Dispensary {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** Set when a lookup matched the token before the last rotation: it works until then. */
  tokenExpiresAt?: string;
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
 * Everything the service keeps, behind one interface with one implementation per database.
 * Every method that writes is one transaction and records a change notice in it.
 */
export interface Store {
  /** Where the data lives, without secrets, for logs and messages. */
  readonly location: string;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Throws, with the reason, unless the database answers and every migration has run (for /readyz). */
  checkReady(): Promise<void>;
  /**
   * Optional: calls onNotice when another process may have written (PostgreSQL LISTEN/NOTIFY), and
   * after every reconnection. Resolves to a function that stops listening. Stores without it are polled.
   */
  listen?(onNotice: () => void): Promise<() => Promise<void>>;

  createDispensary(name: string, tokenDigest: string, actor?: Actor): Promise<Dispensary>;
  getDispensary(id: number): Promise<Dispensary | undefined>;
  findDispensaryByTokenDigest(digest: string): Promise<Dispensary | undefined>;
  listDispensaries(): Promise<DispensarySummary[]>;
  /** Replaces the token; the old one keeps working until `previousValidUntil` (now: at once). */
  setDispensaryToken(
    id: number,
    digest: string,
    actor?: Actor,
    previousValidUntil?: string,
  ): Promise<boolean>;
  removeDispensary(id: number, actor?: Actor): Promise<boolean>;
  getStoreInfo(dispensaryId: number): Promise<StoreInfo | undefined>;
  updateStoreInfo(dispensaryId: number, patch: StoreInfoPatch, actor?: Actor): Promise<StoreInfo | undefined>;

  createCredential(
    username: string,
    passwordHash: string,
    actor?: Actor,
    limits?: CredentialLimits,
  ): Promise<Credential>;
  /** Records a successful use (not a change: no notice, no audit entry). */
  touchCredential(username: string, at: string): Promise<void>;
  /** The credential with that username, revoked or not. */
  findCredential(username: string): Promise<Credential | undefined>;
  listCredentials(): Promise<Credential[]>;
  revokeCredential(username: string, actor?: Actor): Promise<boolean>;

  /** Replaces the whole menu in one transaction; items without an id get fresh ones. Returns the new menu. */
  replaceMenu(dispensaryId: number, items: MenuItemInput[], actor?: Actor): Promise<MenuItem[]>;
  /** Creates or replaces the given items by id, in one transaction; the rest of the menu stays. */
  upsertItems(dispensaryId: number, items: MenuItemInput[], actor?: Actor): Promise<UpsertResult>;
  deleteItem(dispensaryId: number, itemId: number, actor?: Actor): Promise<boolean>;
  /** Every item, active or not, ordered by id, read as one consistent snapshot. */
  readMenu(dispensaryId: number): Promise<MenuItem[]>;
  setItemActive(dispensaryId: number, itemId: number, active: boolean, actor?: Actor): Promise<boolean>;
  /** Sets every stock level in one transaction, or none: throws UnmatchedStockError naming the misses. */
  setStock(dispensaryId: number, updates: StockUpdate[], actor?: Actor): Promise<number>;

  createAdminKey(name: string, scope: string, keyDigest: string, actor?: Actor): Promise<AdminKey>;
  /** An unrevoked admin key with that digest. */
  findAdminKey(keyDigest: string): Promise<AdminKey | undefined>;
  listAdminKeys(): Promise<AdminKey[]>;
  revokeAdminKey(name: string, actor?: Actor): Promise<boolean>;

  listAudit(query: AuditQuery): Promise<AuditEntry[]>;

  findIdempotentAnswer(
    adminKeyId: number,
    key: string,
    notBefore: string,
  ): Promise<IdempotentAnswer | undefined>;
  saveIdempotentAnswer(adminKeyId: number, key: string, answer: IdempotentAnswer): Promise<void>;
  deleteIdempotentAnswersBefore(before: string): Promise<void>;

  changesSince(seq: number): Promise<Change[]>;
  lastChangeSeq(): Promise<number>;
}
