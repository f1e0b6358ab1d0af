import type { Actor } from './actor.js';

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
