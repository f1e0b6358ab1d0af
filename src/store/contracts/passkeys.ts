import type { Actor } from './actor.js';

/** A passkey as the app sees it: never a private key (that stays in the person's authenticator). */
export interface Passkey {
  id: number;
  accountId: number;
  /** The authenticator's credential id, base64url. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter at the last use (0 for authenticators without one). */
  signCount: number;
  transports: string[];
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export type NewPasskey = Pick<Passkey, 'credentialId' | 'publicKey' | 'signCount' | 'transports' | 'name'>;

/** What a challenge was handed out for. */
export type PasskeyCeremony = { purpose: 'register'; accountId: number } | { purpose: 'sign_in' };

/**
 * Accounts' passkeys and the challenges of ceremonies under way. Adding and removing a passkey are
 * account changes (change notice, audit entry naming the person); challenges and use are bookkeeping.
 */
export interface PasskeyRepository {
  /** ConflictError when the credential id is already registered. */
  add(accountId: number, passkey: NewPasskey, actor: Actor): Promise<Passkey>;
  list(accountId: number): Promise<Passkey[]>;
  findByCredentialId(credentialId: string): Promise<Passkey | undefined>;
  /** Removes one passkey of the account; false when it has no such passkey. */
  remove(accountId: number, id: number, actor: Actor): Promise<boolean>;
  /** Records a sign-in: the new signature counter and when. */
  used(id: number, signCount: number, at: string): Promise<void>;
  /** Stores a challenge until `expiresAt` (and forgets expired ones). */
  saveChallenge(challenge: string, ceremony: PasskeyCeremony, expiresAt: string): Promise<void>;
  /**
   * Takes a challenge once: deleted by this call, so a second take (or one after expiry) finds
   * nothing. Undefined when unknown, used or expired.
   */
  takeChallenge(challenge: string, at: string): Promise<PasskeyCeremony | undefined>;
}
