import { randomInt } from 'node:crypto';
import { generateSecret, secretDigest } from '../auth/secrets.js';
import { openSecret, sealSecret } from '../auth/webhook-secrets.js';
import type { Principal } from '../domain/permissions.js';
import type { Account, Store } from '../store/store.js';
import type { ConsoleSessionService, StartedSession } from './console-sessions.js';
import { ServiceError } from './errors.js';
import { ownAccount } from './own-account.js';
import type { WebhookKeySource } from './webhook-key.js';

/** A sign-in waits this long between the password and the code. */
export const PENDING_LIFETIME_MS = 5 * 60 * 1000;
export const RECOVERY_CODES = 10;
const ISSUER = 'Menu console';
/** Bound into the encryption of TOTP secrets (see sealSecret). */
const PURPOSE = Buffer.from('menu-api totp secret');
/** No 0/o, 1/l: a recovery code is read off paper. */
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** otpauth is loaded on first use: a server whose accounts never use codes does not carry it. */
let library: Promise<typeof import('otpauth')> | undefined;
const otpauth = () => {
  library ??= import('otpauth');
  return library;
};

/** After a right password: a session, or a token to finish with a code (or to enrol first). */
export type PasswordOutcome =
  | { session: StartedSession; pending?: undefined }
  | { pending: { token: string; expiresAt: string; next: 'code' | 'enroll' }; session?: undefined };

/** A TOTP secret being set up: shown once, as an otpauth:// URI (for a QR code or a link) and as text. */
export interface Enrolment {
  secret: string;
  uri: string;
}

/**
 * One-time codes (TOTP, RFC 6238: SHA-1, 6 digits, 30 s) as a second factor of accounts, with ten
 * recovery codes shown once and stored as digests. A sign-in whose password is right waits for its
 * code under a token that works 5 minutes; with `required` (--require-second-factor) an account that
 * signs in with its password without TOTP must set TOTP up before it gets a session (a passkey sign-in
 * needs nothing more). Each code works once.
 */
export class SecondFactorService {
  constructor(
    private readonly store: Store,
    private readonly sessions: ConsoleSessionService,
    private readonly keys: WebhookKeySource,
    private readonly options: { required: boolean },
  ) {}

  get required(): boolean {
    return this.options.required;
  }

  /** What follows a right password. */
  async afterPassword(account: Account): Promise<PasswordOutcome> {
    const totp = await this.store.secondFactors.getTotp(account.id);
    if (totp?.confirmedAt) return { pending: await this.pend(account, 'code') };
    // A password alone is one factor, whatever else the account has: with a second factor required, a
    // password sign-in needs codes (a passkey sign-in is two factors by itself: device and PIN or body).
    if (this.options.required) return { pending: await this.pend(account, 'enroll') };
    return { session: await this.sessions.startForAccount(account) };
  }

  /** Finishes a waiting sign-in with a code from the app or a recovery code. */
  async verify(token: unknown, code: unknown, address?: string): Promise<StartedSession> {
    const account = await this.pendingAccount(token);
    const attempt = { username: `account:${account.email}`, address };
    await this.sessions.refuseThrottled(attempt);
    if (!(await this.checkCode(account, code))) {
      await this.sessions.failed(attempt);
      throw wrongCode();
    }
    return this.finish(token as string, account);
  }

  /** Starts setting TOTP up for the signed-in account. */
  async enrol(by: Principal): Promise<Enrolment> {
    return this.begin(await this.ownAccount(by));
  }

  /** Starts setting TOTP up for a waiting sign-in that must have a second factor first. */
  async enrolPending(token: unknown): Promise<Enrolment> {
    return this.begin(await this.pendingAccount(token));
  }

  /** Turns TOTP on with its first code: the recovery codes, shown this once. */
  async confirm(by: Principal, code: unknown, address?: string): Promise<string[]> {
    const account = await this.ownAccount(by);
    return this.confirmFor(account, code, address);
  }

  /** Turns TOTP on for a waiting sign-in, and starts its session. */
  async confirmPending(
    token: unknown,
    code: unknown,
    address?: string,
  ): Promise<{ session: StartedSession; recoveryCodes: string[] }> {
    const account = await this.pendingAccount(token);
    const recoveryCodes = await this.confirmFor(account, code, address);
    return { session: await this.finish(token as string, account), recoveryCodes };
  }

  async status(by: Principal): Promise<{ enabled: boolean; recoveryCodesLeft: number; required: boolean }> {
    const account = await this.ownAccount(by);
    const totp = await this.store.secondFactors.getTotp(account.id);
    const enabled = Boolean(totp?.confirmedAt);
    return {
      enabled,
      recoveryCodesLeft: enabled ? await this.store.secondFactors.unusedRecoveryCodes(account.id) : 0,
      required: this.options.required,
    };
  }

  /** Turns TOTP off, with a current code (or a recovery code). */
  async disable(by: Principal, code: unknown, address?: string): Promise<void> {
    const account = await this.ownAccount(by);
    const totp = await this.store.secondFactors.getTotp(account.id);
    if (!totp?.confirmedAt)
      throw new ServiceError('not_found', 'One-time codes are not turned on for your account.');
    const attempt = { username: `account:${account.email}`, address };
    await this.sessions.refuseThrottled(attempt);
    if (!(await this.checkCode(account, code))) {
      await this.sessions.failed(attempt);
      throw wrongCode();
    }
    await this.store.secondFactors.removeTotp(account.id, `account:${account.email}`);
  }

  private async pend(account: Account, next: 'code' | 'enroll') {
    const token = generateSecret(32);
    const expiresAt = new Date(Date.now() + PENDING_LIFETIME_MS).toISOString();
    await this.store.secondFactors.savePending(secretDigest(token), account.id, expiresAt);
    return { token, expiresAt, next };
  }

  private async pendingAccount(token: unknown): Promise<Account> {
    const id =
      typeof token === 'string' && /^[A-Za-z0-9_-]{20,100}$/.test(token)
        ? await this.store.secondFactors.pendingAccount(secretDigest(token), new Date().toISOString())
        : undefined;
    const account = id === undefined ? undefined : await this.store.accounts.get(id);
    if (!account?.active) throw expired();
    return account;
  }

  private async finish(token: string, account: Account): Promise<StartedSession> {
    // Ending the waiting sign-in is the claim: of two right codes at once, one session starts.
    if (!(await this.store.secondFactors.endPending(secretDigest(token)))) throw expired();
    return this.sessions.startForAccount(account);
  }

  private async begin(account: Account): Promise<Enrolment> {
    const { Secret, TOTP } = await otpauth();
    const secret = new Secret({ size: 20 });
    const sealed = sealSecret(this.keys.key(true), secret.base32, PURPOSE);
    if (!(await this.store.secondFactors.startTotp(account.id, sealed, new Date().toISOString()))) {
      throw new ServiceError(
        'conflict',
        'One-time codes are already on for your account. Turn them off first to set up a new app.',
      );
    }
    const totp = new TOTP({ issuer: ISSUER, label: account.email, secret });
    return { secret: secret.base32, uri: totp.toString() };
  }

  private async confirmFor(account: Account, code: unknown, address?: string): Promise<string[]> {
    const attempt = { username: `account:${account.email}`, address };
    await this.sessions.refuseThrottled(attempt);
    const totp = await this.store.secondFactors.getTotp(account.id);
    if (!totp || totp.confirmedAt) {
      throw new ServiceError(
        'invalid_request',
        'Start setting up one-time codes first (Set up on the Account page).',
      );
    }
    const step = await this.stepOf(totp.sealedSecret, account.email, code);
    if (step === undefined) {
      await this.sessions.failed(attempt);
      throw wrongCode();
    }
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    const confirmed = await this.store.secondFactors.confirmTotp(
      account.id,
      step,
      codes.map((each) => recoveryDigest(account.id, each)),
      `account:${account.email}`,
    );
    if (!confirmed) throw new ServiceError('conflict', 'One-time codes were turned on already.');
    return codes;
  }

  /** Whether `code` is a current TOTP code not used before, or an unused recovery code (then used up). */
  private async checkCode(account: Account, code: unknown): Promise<boolean> {
    const given = typeof code === 'string' ? code.replace(/[\s-]/g, '').toLowerCase() : '';
    const totp = await this.store.secondFactors.getTotp(account.id);
    if (!totp?.confirmedAt) return false;
    if (/^\d{6}$/.test(given)) {
      const step = await this.stepOf(totp.sealedSecret, account.email, given);
      return step !== undefined && (await this.store.secondFactors.useStep(account.id, step));
    }
    if (!/^[a-z0-9]{10}$/.test(given)) return false;
    return this.store.secondFactors.useRecoveryCode(
      account.id,
      recoveryDigest(account.id, given),
      new Date().toISOString(),
      `account:${account.email}`,
    );
  }

  /** The 30-second step a code belongs to (one step of drift either way), or undefined. */
  private async stepOf(sealed: string, email: string, code: unknown): Promise<number | undefined> {
    if (typeof code !== 'string' || !/^\d{6}$/.test(code.replace(/\s/g, ''))) return undefined;
    const { Secret, TOTP } = await otpauth();
    const secret = Secret.fromBase32(openSecret(this.keys.key(false), sealed, PURPOSE));
    const totp = new TOTP({ issuer: ISSUER, label: email, secret });
    const now = Date.now();
    const delta = totp.validate({ token: code.replace(/\s/g, ''), timestamp: now, window: 1 });
    return delta === null ? undefined : Math.floor(now / 1000 / totp.period) + delta;
  }

  /** One-time codes belong to people: an admin key's session has none. */
  private ownAccount(by: Principal): Promise<Account> {
    return ownAccount(this.store, by, 'One-time codes belong to accounts');
  }
}

function recoveryCode(): string {
  let code = '';
  for (let index = 0; index < 10; index++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** Keyed by the account, so that two accounts' equal codes (never, in practice) are two rows. */
function recoveryDigest(accountId: number, code: string): string {
  return secretDigest(`recovery\n${accountId}\n${code.replace('-', '')}`);
}

function expired(): ServiceError {
  return new ServiceError(
    'invalid_credentials',
    'This sign-in has expired (a code is asked for within 5 minutes of the password). Sign in again.',
  );
}

function wrongCode(): ServiceError {
  return new ServiceError(
    'invalid_credentials',
    'That code is not right (or was used already). Enter the current 6-digit code from your app, or one of your recovery codes.',
  );
}
