import type { Actor } from './actor.js';

/** An account's TOTP secret as stored: encrypted. */
export interface StoredTotp {
  accountId: number;
  /** Encrypted (src/auth/webhook-secrets.ts sealSecret). */
  sealedSecret: string;
  confirmedAt: string | null;
  lastStep: number;
}

/**
 * Second factors of accounts: the TOTP secret, recovery codes (digests) and sign-ins waiting for a
 * code. Turning a factor on or off and using a recovery code are account changes (audit entry
 * naming the person, never a secret); waiting sign-ins and accepted steps are bookkeeping.
 */
export interface SecondFactorRepository {
  getTotp(accountId: number): Promise<StoredTotp | undefined>;
  /** Stores a new unconfirmed secret, replacing an unconfirmed one; false when one is confirmed already. */
  startTotp(accountId: number, sealedSecret: string, at: string): Promise<boolean>;
  /** Confirms the secret (its first code's step) and replaces the recovery codes, in one write. */
  confirmTotp(accountId: number, step: number, recoveryDigests: string[], actor: Actor): Promise<boolean>;
  /** Accepts a code's step once: false when that step (or a later one) was used already. */
  useStep(accountId: number, step: number): Promise<boolean>;
  /** Turns TOTP off: the secret and recovery codes are deleted. */
  removeTotp(accountId: number, actor: Actor): Promise<boolean>;
  /** Uses an unused recovery code once; false when unknown or used. */
  useRecoveryCode(accountId: number, digest: string, at: string, actor: Actor): Promise<boolean>;
  unusedRecoveryCodes(accountId: number): Promise<number>;
  savePending(digest: string, accountId: number, expiresAt: string): Promise<void>;
  /** The account of a waiting sign-in that has not expired (it stays until `endPending`). */
  pendingAccount(digest: string, at: string): Promise<number | undefined>;
  /** Ends a waiting sign-in; false when another request ended it first. */
  endPending(digest: string): Promise<boolean>;
}
