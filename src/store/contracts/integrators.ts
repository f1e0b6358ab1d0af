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

/** Where a request to read a dispensary is: `waiting` for its managers, then `approved` or `declined`. */
export type AccessRequestStatus = 'waiting' | 'approved' | 'declined';

/** An integrator's request to read a dispensary. */
export interface AccessRequest {
  id: number;
  accountId: number;
  email: string;
  company: string;
  /** What the integrator builds, for the managers deciding. */
  building: string;
  dispensaryId: number;
  dispensaryName: string;
  status: AccessRequestStatus;
  /** Whether the integrator has taken its token for the dispensary (shown to it once). */
  hasToken: boolean;
  decidedBy: string | null;
  createdAt: string;
  updatedAt: string;
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
   * A new confirmation link for a registration that was never confirmed, in one write (the earlier link
   * stops working): when it registers again (a lost email, or someone else who typed this address),
   * with its profile and password replaced too; without `again`, the operator's fresh link for it.
   * Undefined when the email's account is anything else (the caller then sends nothing).
   */
  renewUnconfirmed(
    email: string,
    confirm: { digest: string; expiresAt: string },
    again?: { profile: IntegratorProfile; passwordDigest: string },
    actor?: Actor,
  ): Promise<Account | undefined>;
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
  /** Replaces the password of an approved integrator's credential; its username, or undefined. */
  setCredentialPassword(accountId: number, passwordHash: string): Promise<string | undefined>;
  /** A new waiting request to read the dispensary. ConflictError when the integrator asked before. */
  requestAccess(accountId: number, dispensaryId: number): Promise<AccessRequest>;
  /** Requests of one integrator, or for some dispensaries (undefined: every one). */
  accessRequests(filter: { accountId?: number; dispensaryIds?: readonly number[] }): Promise<AccessRequest[]>;
  getAccessRequest(id: number): Promise<AccessRequest | undefined>;
  /**
   * Decides a waiting request, or declines (withdraws) an approved one, in one write: approval adds the
   * dispensary to the integrator's credential, withdrawal takes it away with the integrator's token.
   * Undefined when the request is in no state to be so decided.
   */
  decideAccess(
    id: number,
    decision: 'approved' | 'declined',
    actor: Actor,
  ): Promise<AccessRequest | undefined>;
  /**
   * Stores the digest of a new token of the integrator's own for an approved request (an earlier one
   * stops working). False when the request is not approved.
   */
  setAccessToken(id: number, digest: string, actor: Actor): Promise<boolean>;
}
