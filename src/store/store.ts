import type { MenuItem, MenuItemInput } from '../domain/item.js';

export interface Dispensary {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
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
}

/** What a change notice says changed, so that a process drops only what it cached of that. */
export type ChangeKind = 'menu' | 'dispensary' | 'credential';

export interface Change {
  seq: number;
  kind: ChangeKind;
  dispensaryId: number | null;
  /** For credential changes, the username. */
  subject: string | null;
}

/** Raised for a write that would break a uniqueness rule (a username that exists, say). */
export class ConflictError extends Error {}

/**
 * Everything the service keeps, behind one interface with one implementation per database.
 * Every method that writes is one transaction and records a change notice in it.
 */
export interface Store {
  /** Where the data lives, without secrets, for logs and messages. */
  readonly location: string;
  migrate(): Promise<void>;
  close(): Promise<void>;

  createDispensary(name: string, tokenDigest: string): Promise<Dispensary>;
  getDispensary(id: number): Promise<Dispensary | undefined>;
  findDispensaryByTokenDigest(digest: string): Promise<Dispensary | undefined>;
  listDispensaries(): Promise<DispensarySummary[]>;
  setDispensaryToken(id: number, digest: string): Promise<boolean>;
  removeDispensary(id: number): Promise<boolean>;

  createCredential(username: string, passwordHash: string): Promise<Credential>;
  /** The credential with that username, revoked or not. */
  findCredential(username: string): Promise<Credential | undefined>;
  listCredentials(): Promise<Credential[]>;
  revokeCredential(username: string): Promise<boolean>;

  /** Replaces the whole menu in one transaction; items without an id get fresh ones. Returns the new menu. */
  replaceMenu(dispensaryId: number, items: MenuItemInput[]): Promise<MenuItem[]>;
  /** Every item, active or not, ordered by id, read as one consistent snapshot. */
  readMenu(dispensaryId: number): Promise<MenuItem[]>;
  setItemActive(dispensaryId: number, itemId: number, active: boolean): Promise<boolean>;

  changesSince(seq: number): Promise<Change[]>;
  lastChangeSeq(): Promise<number>;
}
