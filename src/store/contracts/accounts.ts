import type { Actor } from './actor.js';

/** What an account may do: see src/domain/permissions.ts. */
export type AccountRole = 'operator' | 'manager' | 'staff' | 'integrator';

/** What a one-time link is for: the first password of an invited account, or a new one. */
export type AccountLinkPurpose = 'invite' | 'reset';

export interface Account {
  id: number;
  /** Lower case; unique. */
  email: string;
  role: AccountRole;
  /** The dispensaries a manager or staff account covers ([] for an operator). */
  dispensaryIds: number[];
  /** False until the invitation is accepted (no password yet). */
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** An account with its password digest, for sign-in only. */
export interface AccountWithPassword extends Account {
  passwordDigest: string | null;
  /** The single sign-on identity it is bound to (`ISSUER SUBJECT`), if it ever signed in that way. */
  ssoIdentity: string | null;
}

/** What an account's role and reach are set to. */
export interface AccountAccess {
  role: AccountRole;
  dispensaryIds: number[];
}

/** A one-time link as stored: the digest of its secret, what it is for, until when it works. */
export interface AccountLink {
  digest: string;
  purpose: AccountLinkPurpose;
  expiresAt: string;
}

/** People and their one-time links; every change is recorded (change notice, audit entry). */
export interface AccountRepository {
  /** A new account without a password, and its invitation link, in one write. ConflictError on a known email. */
  invite(email: string, access: AccountAccess, link: AccountLink, actor?: Actor): Promise<Account>;
  get(id: number): Promise<Account | undefined>;
  findByEmail(email: string): Promise<AccountWithPassword | undefined>;
  list(): Promise<Account[]>;
  /** Sets role and dispensaries; undefined when there is no such account. */
  change(id: number, access: AccountAccess, actor?: Actor): Promise<Account | undefined>;
  /** Deletes the account, its links, passkeys and sessions; false when there is no such account. */
  remove(id: number, actor?: Actor): Promise<boolean>;
  /** Replaces the account's unused links with this one (a password reset); false when there is no such account. */
  replaceLinks(id: number, link: AccountLink, actor?: Actor): Promise<boolean>;
  /** The account of an unexpired link (the link stays usable). */
  linkAccount(digest: string, at: string): Promise<(Account & { purpose: AccountLinkPurpose }) | undefined>;
  /**
   * Uses an unexpired link once: sets the password, deletes every link and ends every session of the
   * account, in one write recorded as the account's own. Undefined when the link is unknown, used or expired.
   */
  redeemLink(digest: string, at: string, passwordDigest: string): Promise<Account | undefined>;
  /**
   * The account's owner chose a new password, knowing the current one: sets it only while the stored
   * digest is still `previousDigest` (of two changes at once, one wins), and deletes the account's links,
   * its sign-ins waiting for a second factor and every session but `keepSession` (a digest), in one
   * write recorded as the account's own. Undefined when the account is gone or its password changed.
   */
  changePassword(
    id: number,
    previousDigest: string,
    passwordDigest: string,
    keepSession: string | null,
  ): Promise<{ account: Account; endedSessions: number } | undefined>;
  /** The account bound to this single sign-on identity (`ISSUER SUBJECT`). */
  findBySsoIdentity(identity: string): Promise<Account | undefined>;
  /**
   * A single sign-on by the account's owner, recorded as theirs ("signed in with SSO"): binds the
   * identity when the account has none (which accepts a pending invitation: its links are deleted), in
   * one write. Undefined when the account is gone or bound to another identity.
   */
  signedInWithSso(id: number, identity: string): Promise<Account | undefined>;
  /** A new active account bound to the identity, made by its first single sign-on. ConflictError on a known email or identity. */
  joinWithSso(email: string, access: AccountAccess, identity: string): Promise<Account>;
}
