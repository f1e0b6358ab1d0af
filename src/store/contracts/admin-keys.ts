import type { Actor } from './actor.js';

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
