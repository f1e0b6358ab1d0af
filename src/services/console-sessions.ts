import { randomBytes } from 'node:crypto';
import { DEFAULT_SCRYPT_COST, hashPassword, type ScryptCost, verifyPassword } from '../auth/password.js';
import { generateSecret, safeEqual, secretDigest, sha256 } from '../auth/secrets.js';
import { accountPrincipal, keyPrincipal, type Principal } from '../domain/permissions.js';
import type { Account, AdminKey, ConsoleSession, Store } from '../store/store.js';
import type { AdminKeyVerifier } from './admin-keys.js';
import { RateLimitedError, ServiceError } from './errors.js';
import type { LoginAttempt, LoginGuard } from './login-guard/login-guard.js';

/** Use is written down at most this often per session: the idle timeout is this precise. */
const TOUCH_RESOLUTION_MS = 60_000;
const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

export interface ConsoleSessionOptions {
  /** A session unused this long ends. */
  idleTimeoutMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  lifetimeMs: number;
  /** Failed sign-ins count here, with every other failed login of the address (and of the account). */
  guard?: LoginGuard;
  /** The cost of the decoy hash an unknown email is checked against (the accounts' own cost travels with their hash). */
  scryptCost?: ScryptCost;
}

/** Who a session is: an admin key, or a person's account. */
export type SessionHolder =
  | { adminKey: AdminKey; account?: undefined }
  | { account: Account; adminKey?: undefined };

/** A session that was just started: `id` goes into the cookie and nowhere else. */
export type StartedSession = SessionHolder & {
  id: string;
  csrfToken: string;
  principal: Principal;
  expiresAt: string;
};

/** A session found by its id, with who it acts as. */
export type ActiveSession = SessionHolder & {
  csrfToken: string;
  principal: Principal;
  expiresAt: string;
};

const TOO_MANY = (seconds: number) =>
  new RateLimitedError(
    `Too many failed sign-ins for this account or from your address. Wait ${seconds} seconds before trying again.`,
    seconds,
  );

/**
 * Console sign-in: an admin key, or an account's email and password, is exchanged for a session kept
 * in the database (so any server process accepts it), of which only the id's digest is stored. Each
 * use checks the key again through the admin key verifier (which forgets on every admin key change)
 * or reads the account again, so a revoked key or a removed or changed account takes effect at once.
 */
export class ConsoleSessionService {
  private readonly guard: LoginGuard | undefined;
  /** What an unknown email's password is checked against, so that it costs what a known one does. */
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly store: Store,
    private readonly keys: AdminKeyVerifier,
    private readonly options: ConsoleSessionOptions,
  ) {
    this.guard = options.guard;
    this.decoyHash = hashPassword(randomBytes(16).toString('hex'), options.scryptCost ?? DEFAULT_SCRYPT_COST);
  }

  get idleTimeoutMs(): number {
    return this.options.idleTimeoutMs;
  }

  get lifetimeMs(): number {
    return this.options.lifetimeMs;
  }

  async signIn(key: unknown, address?: string): Promise<StartedSession> {
    const attempt = { address };
    await this.refuseThrottled(attempt);
    const adminKey =
      typeof key === 'string' && /^[\x21-\x7e]{1,200}$/.test(key) ? await this.keys.verify(key) : undefined;
    if (!adminKey) {
      await this.guard?.failed(attempt);
      throw new ServiceError(
        'invalid_credentials',
        'That admin key is not valid (unknown or revoked). Create one with: menu-api admin-key create --scope all',
      );
    }
    return this.start({ adminKey }, { adminKeyId: adminKey.id, accountId: null });
  }

  /**
   * Email and password sign-in. An unknown email, an account that has not chosen a password yet and a
   * wrong password get the same answer after the same work (one scrypt); failures count per account
   * and per address, and a refused attempt hashes nothing.
   */
  async signInWithPassword(email: unknown, password: unknown, address?: string): Promise<StartedSession> {
    return this.startForAccount(await this.checkPassword(email, password, address));
  }

  /** The account of a right email and password (the first step of a sign-in that may need a second factor). */
  async checkPassword(email: unknown, password: unknown, address?: string): Promise<Account> {
    const normal = typeof email === 'string' ? email.trim().toLowerCase().slice(0, 254) : '';
    const attempt: LoginAttempt = { username: `account:${normal}`, address };
    await this.refuseThrottled(attempt);
    const found = normal === '' ? undefined : await this.store.accounts.findByEmail(normal);
    const given = typeof password === 'string' && password.length <= 1024 ? password : '';
    const matches = await verifyPassword(given, found?.passwordDigest ?? (await this.decoyHash));
    if (!found || found.passwordDigest === null || !matches) {
      await this.guard?.failed(attempt);
      throw new ServiceError(
        'invalid_credentials',
        'That email and password do not match an account. Check both, or ask your manager for a new link.',
      );
    }
    await this.guard?.succeeded(attempt);
    const { passwordDigest: _secret, ...account } = found;
    return account;
  }

  /** The session of a cookie's id, or undefined when it is unknown, over, or its key or account is gone. */
  async resolve(id: string): Promise<ActiveSession | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const digest = secretDigest(id);
    const session = await this.store.consoleSessions.find(digest);
    if (!session) return undefined;
    const now = Date.now();
    const idleSince = Date.parse(session.lastSeenAt);
    const over = Date.parse(session.expiresAt) <= now || idleSince + this.options.idleTimeoutMs <= now;
    const holder = over ? undefined : await this.holderOf(session);
    if (!holder) {
      await this.store.consoleSessions.remove(digest);
      return undefined;
    }
    if (now - idleSince >= TOUCH_RESOLUTION_MS) {
      await this.store.consoleSessions.touch(digest, new Date(now).toISOString());
    }
    return {
      ...holder,
      principal: principalOf(holder),
      csrfToken: csrfTokenOf(id),
      expiresAt: session.expiresAt,
    };
  }

  /** Whether `token` is the CSRF token of the session `id` (constant time). */
  csrfMatches(id: string, token: unknown): boolean {
    return typeof token === 'string' && safeEqual(token, csrfTokenOf(id));
  }

  async signOut(id: string): Promise<void> {
    if (!SESSION_ID.test(id)) return;
    await this.store.consoleSessions.remove(secretDigest(id));
  }

  /** Ends every session of the account of session `id` (every browser it signed in on); how many ended. */
  async signOutEverywhere(id: string): Promise<number> {
    const session = SESSION_ID.test(id) ? await this.store.consoleSessions.find(secretDigest(id)) : undefined;
    if (!session || session.accountId === null) {
      throw new ServiceError(
        'invalid_request',
        'Signing out everywhere is for accounts. An admin key session ends when you sign out or the key is revoked.',
      );
    }
    return this.store.consoleSessions.removeOfAccount(session.accountId);
  }

  /** 429 when the address (or account) failed to sign in too often; another way in (a passkey) asks too. */
  async refuseThrottled(attempt: LoginAttempt): Promise<void> {
    const verdict = await this.guard?.check(attempt);
    if (verdict && !verdict.allowed) throw TOO_MANY(verdict.retryAfterSeconds);
  }

  /** Counts a failed sign-in made another way (a passkey) in the same guard. */
  async failed(attempt: LoginAttempt): Promise<void> {
    await this.guard?.failed(attempt);
  }

  /** A session for an account whose owner proved who they are another way (a passkey). */
  startForAccount(account: Account): Promise<StartedSession> {
    return this.start({ account }, { adminKeyId: null, accountId: account.id });
  }

  /** A new session with a new id: an id from before sign-in is never carried over (no session fixation). */
  private async start(
    holder: SessionHolder,
    owner: Pick<ConsoleSession, 'adminKeyId' | 'accountId'>,
  ): Promise<StartedSession> {
    const id = generateSecret(32);
    const now = Date.now();
    const at = new Date(now).toISOString();
    const expiresAt = new Date(now + this.options.lifetimeMs).toISOString();
    await this.store.consoleSessions.removeEnded(
      at,
      new Date(now - this.options.idleTimeoutMs).toISOString(),
    );
    await this.store.consoleSessions.create({
      idDigest: secretDigest(id),
      ...owner,
      createdAt: at,
      lastSeenAt: at,
      expiresAt,
    });
    return { ...holder, id, principal: principalOf(holder), csrfToken: csrfTokenOf(id), expiresAt };
  }

  private async holderOf(session: ConsoleSession): Promise<SessionHolder | undefined> {
    if (session.accountId !== null) {
      const account = await this.store.accounts.get(session.accountId);
      return account?.active ? { account } : undefined;
    }
    const adminKey = session.adminKeyId === null ? undefined : await this.keys.verifyId(session.adminKeyId);
    return adminKey && { adminKey };
  }
}

function principalOf(holder: SessionHolder): Principal {
  return holder.account ? accountPrincipal(holder.account) : keyPrincipal(holder.adminKey);
}

/**
 * The CSRF token is derived from the session id, so it is bound to the session and needs no storage;
 * knowing it tells nothing of the id (SHA-256 of a 256-bit secret).
 */
function csrfTokenOf(id: string): string {
  return sha256(`console-csrf\n${id}`, 'base64').replace(/=+$/, '');
}
