import { hashPassword, type ScryptCost } from '../auth/password.js';
import { generateSecret, secretDigest } from '../auth/secrets.js';
import { covers, type Principal, ROLES, type Role, refusal } from '../domain/permissions.js';
import {
  type Account,
  type AccountAccess,
  type AccountLinkPurpose,
  ConflictError,
  type Store,
} from '../store/store.js';
import { ServiceError } from './errors.js';

/** A one-time link works this long. */
export const LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Passwords people choose: long enough to resist guessing, short enough to hash at once. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;
/** Where the console's link page is, below the console's address; the secret follows after `#`. */
const LINK_PAGE = '/console/link';
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/;

/** Sends one plain-text email (src/infra/mailer.ts over SMTP). */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

/** Who did it when nobody signed in did: the operator at the command line. */
export const CLI_OPERATOR: Principal = { actor: 'cli', role: 'operator', dispensaries: 'all' };

/** An account, or its email (the CLI names accounts by email, the sync API by id). */
export type AccountRef = number | string;

/** A new one-time link: shown once (and emailed when a mailer is set), stored only as a digest. */
export interface IssuedLink {
  account: Account;
  url: string;
  expiresAt: string;
  emailed: boolean;
  /** Why the SMTP server did not take the email: the link is issued all the same, to be sent by hand. */
  emailError?: string;
}

/**
 * People's accounts: invitations, roles, removal and password links. The sync API, the console and the
 * CLI all call it; who may manage whom is decided here (an operator anyone, a manager the staff of
 * its own dispensaries).
 */
export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly options: { scryptCost?: ScryptCost; mailer?: Mailer } = {},
  ) {}

  async invite(
    input: { email: unknown; role: unknown; dispensaryIds?: unknown },
    by: Principal,
    consoleUrl: string,
  ): Promise<IssuedLink> {
    const email = checkedEmail(input.email);
    const access = await this.checkedAccess(input.role, input.dispensaryIds);
    this.mayManage(by, access);
    const { secret, link } = newLink('invite');
    let account: Account;
    try {
      account = await this.store.accounts.invite(email, access, link, by.actor);
    } catch (error) {
      if (error instanceof ConflictError) {
        throw new ServiceError(
          'conflict',
          `There is already an account for ${email}. To let its owner in again: npx menu-api account reset-password ${email}`,
        );
      }
      throw error;
    }
    return this.deliver(account, secret, link.expiresAt, consoleUrl, 'invite');
  }

  /** The accounts `by` may see: every one for an operator, else those within its dispensaries. */
  async list(by: Principal): Promise<Account[]> {
    const accounts = await this.store.accounts.list();
    return accounts.filter((account) => by.role === 'operator' || withinReach(by, account));
  }

  async get(ref: AccountRef, by: Principal): Promise<Account> {
    const account = await this.find(ref);
    if (by.role !== 'operator' && !withinReach(by, account)) throw notFound(ref);
    return account;
  }

  async change(
    ref: AccountRef,
    input: { role?: unknown; dispensaryIds?: unknown },
    by: Principal,
  ): Promise<Account> {
    const account = await this.get(ref, by);
    this.mayManage(by, account);
    const access = await this.checkedAccess(
      input.role ?? account.role,
      input.dispensaryIds ?? account.dispensaryIds,
    );
    this.mayManage(by, access);
    if (by.accountId === account.id && access.role !== account.role) {
      throw new ServiceError('conflict', 'You cannot change your own role: ask another operator.');
    }
    const changed = await this.store.accounts.change(account.id, access, by.actor);
    if (!changed) throw notFound(ref);
    return changed;
  }

  async remove(ref: AccountRef, by: Principal): Promise<void> {
    const account = await this.get(ref, by);
    this.mayManage(by, account);
    if (by.accountId === account.id) {
      throw new ServiceError('conflict', 'You cannot remove your own account: ask another operator.');
    }
    // An integrator's API credential goes with its account (its registration is removed with it).
    const credential = (await this.store.integrators.get(account.id))?.credentialUsername;
    if (!(await this.store.accounts.remove(account.id, by.actor))) throw notFound(ref);
    if (credential) await this.store.credentials.revoke(credential, by.actor);
  }

  /** A new one-time link to choose a password; earlier unused links stop working. */
  async resetPassword(ref: AccountRef, by: Principal, consoleUrl: string): Promise<IssuedLink> {
    const account = await this.get(ref, by);
    this.mayManage(by, account);
    const { secret, link } = newLink('reset');
    if (!(await this.store.accounts.replaceLinks(account.id, link, by.actor))) throw notFound(ref);
    return this.deliver(account, secret, link.expiresAt, consoleUrl, 'reset');
  }

  /** Whose link this is and what for, while it works (the console's link page shows it). */
  async describeLink(secret: string): Promise<{ email: string; purpose: AccountLinkPurpose }> {
    const found = wellFormedSecret(secret)
      ? await this.store.accounts.linkAccount(secretDigest(secret), new Date().toISOString())
      : undefined;
    if (!found) throw linkGone();
    return { email: found.email, purpose: found.purpose };
  }

  /** Uses a one-time link: the password is set, every other session of the account ends. */
  async redeemLink(secret: string, password: unknown): Promise<Account> {
    const chosen = checkedPassword(password);
    if (!wellFormedSecret(secret)) throw linkGone();
    const digest = await hashPassword(chosen, this.options.scryptCost);
    const account = await this.store.accounts.redeemLink(
      secretDigest(secret),
      new Date().toISOString(),
      digest,
    );
    if (!account) throw linkGone();
    return account;
  }

  private async find(ref: AccountRef): Promise<Account> {
    if (typeof ref === 'number') {
      const account = await this.store.accounts.get(ref);
      if (!account) throw notFound(ref);
      return account;
    }
    const found = await this.store.accounts.findByEmail(ref.trim().toLowerCase());
    if (!found) throw notFound(ref);
    const { passwordDigest: _secret, ssoIdentity: _identity, ...account } = found;
    return account;
  }

  /** An operator manages anyone; a manager staff within its own dispensaries; nobody else anyone. */
  private mayManage(by: Principal, target: AccountAccess): void {
    const refused = refusal(by, 'team');
    if (refused) throw new ServiceError('forbidden', refused);
    if (by.role === 'operator') return;
    if (target.role !== 'staff' || !withinReach(by, target)) {
      throw new ServiceError(
        'forbidden',
        'A manager manages staff accounts of its own dispensaries only. Ask an operator for anything else.',
      );
    }
  }

  private async checkedAccess(role: unknown, dispensaryIds: unknown): Promise<AccountAccess> {
    if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
      throw new ServiceError('invalid_request', `The role must be one of ${ROLES.join(', ')}.`);
    }
    const ids = dispensaryIds ?? [];
    if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id) && id > 0)) {
      throw new ServiceError(
        'invalid_request',
        'dispensary_ids must be a list of dispensary ids, for example [1, 4].',
      );
    }
    const unique = [...new Set(ids as number[])].sort((a, b) => a - b);
    if (role === 'operator' && unique.length > 0) {
      throw new ServiceError('invalid_request', 'An operator covers every dispensary: give no dispensaries.');
    }
    if (role !== 'operator' && unique.length === 0) {
      throw new ServiceError(
        'invalid_request',
        `A ${role} account needs the dispensaries it covers, for example --dispensaries 1,4.`,
      );
    }
    for (const id of unique) {
      if (!(await this.store.dispensaries.get(id))) {
        throw new ServiceError(
          'not_found',
          `There is no dispensary ${id}. List them with: npx menu-api dispensary list`,
        );
      }
    }
    return { role: role as Role, dispensaryIds: unique };
  }

  private async deliver(
    account: Account,
    secret: string,
    expiresAt: string,
    consoleUrl: string,
    purpose: AccountLinkPurpose,
  ): Promise<IssuedLink> {
    const url = `${consoleUrl.replace(/\/+$/, '')}${LINK_PAGE}#${secret}`;
    const mailer = this.options.mailer;
    if (!mailer) return { account, url, expiresAt, emailed: false };
    try {
      await mailer.send({
        to: account.email,
        subject:
          purpose === 'invite'
            ? 'You are invited to the dispensary menu console'
            : 'Choose a new password for the menu console',
        text: [
          purpose === 'invite'
            ? `You have been given a ${account.role} account for the dispensary menu console.`
            : 'A new password was requested for your menu console account.',
          '',
          `Open this link to choose your password (it works once, until ${expiresAt}):`,
          url,
        ].join('\n'),
      });
    } catch (error) {
      // The account and its link are stored and work: the link is given to the caller to send
      // instead, with the reason (undoing the invitation would lose nothing the person could use).
      const reason = error instanceof Error ? error.message : String(error);
      return {
        account,
        url,
        expiresAt,
        emailed: false,
        emailError: `Could not email the link to ${account.email}: ${reason}. The link works all the same: send the link to ${account.email} yourself.`,
      };
    }
    return { account, url, expiresAt, emailed: true };
  }
}

/**
 * Whether every dispensary of `account` is one `by` covers. Staff of no dispensary (people who joined by
 * single sign-on from an allowed domain) are within every manager's reach, to be given dispensaries.
 */
function withinReach(by: Principal, account: { role?: string; dispensaryIds: readonly number[] }): boolean {
  if (account.dispensaryIds.length === 0) return account.role === 'staff';
  return account.dispensaryIds.every((id) => covers(by, id));
}

function newLink(purpose: AccountLinkPurpose) {
  const secret = generateSecret(32);
  const expiresAt = new Date(Date.now() + LINK_LIFETIME_MS).toISOString();
  return { secret, link: { digest: secretDigest(secret), purpose, expiresAt } };
}

const wellFormedSecret = (secret: string) => /^[A-Za-z0-9_-]{20,100}$/.test(secret);

export function checkedEmail(email: unknown): string {
  const normal = typeof email === 'string' ? email.trim().toLowerCase() : '';
  if (!EMAIL.test(normal) || normal.length > 254) {
    throw new ServiceError('invalid_request', 'The email must be an address such as manager@example.com.');
  }
  return normal;
}

/** A password someone chooses (a one-time link, a change of their own): 12 to 200 characters. */
export function checkedPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new ServiceError(
      'invalid_request',
      `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (a few words make a good one).`,
    );
  }
  return password;
}

function notFound(ref: AccountRef): ServiceError {
  return new ServiceError(
    'not_found',
    `There is no account ${ref}. List them with: npx menu-api account list`,
  );
}

function linkGone(): ServiceError {
  return new ServiceError(
    'not_found',
    'This link is unknown, already used or expired (links work once, for 7 days). Ask for a new one: npx menu-api account reset-password EMAIL',
  );
}
