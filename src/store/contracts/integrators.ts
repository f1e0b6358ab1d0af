import type { Account } from './accounts.js';
import type { Actor } from './actor.js';

/**
 * Where an integrator's registration is: `unconfirmed` until its email link is used, `waiting` for the
 * operator, then `approved` (it signs in, its credential exists) or `declined`.
 */
export type IntegratorStatus = 'unconfirmed' | 'waiting' | 'approved' | 'declined';

/** What an integrator tells about itself at /developers. */
export interface IntegratorProfile {
  name: string;
  company: string;
  /** What it builds with the API, in its own words. */
  building: string;
}

export interface Integrator extends IntegratorProfile {
  accountId: number;
  email: string;
  status: IntegratorStatus;
  /** The API credential approval made; null before. */
  credentialUsername: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The credential an approval creates: its username, and its password's scrypt digest. */
export interface NewIntegratorCredential {
  username: string;
  passwordHash: string;
}

/** Integrators' registrations; every change is recorded (change notice, audit entry), never a secret. */
export interface IntegratorRepository {
  /**
   * A new account of role `integrator` without a password (it cannot sign in yet) and its registration,
   * unconfirmed, in one write. ConflictError on a known email.
   */
  register(
    email: string,
    profile: IntegratorProfile,
    passwordDigest: string,
    confirm: { digest: string; expiresAt: string },
  ): Promise<Account>;
  /**
   * Uses an unexpired confirmation link once: the registration then waits for the operator. Undefined
   * when the link is unknown, used or expired.
   */
  confirm(digest: string, at: string): Promise<Integrator | undefined>;
  get(accountId: number): Promise<Integrator | undefined>;
  list(): Promise<Integrator[]>;
  /**
   * Approves a waiting registration, in one write: the credential is created (reading no dispensary
   * yet), the chosen password becomes the account's. Undefined when it is not waiting.
   */
  approve(
    accountId: number,
    credential: NewIntegratorCredential,
    actor?: Actor,
  ): Promise<Integrator | undefined>;
  /** Declines a waiting registration (its chosen password is forgotten). Undefined when it is not waiting. */
  decline(accountId: number, actor?: Actor): Promise<Integrator | undefined>;
}
