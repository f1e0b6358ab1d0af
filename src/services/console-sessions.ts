import { generateSecret, safeEqual, secretDigest, sha256 } from '../auth/secrets.js';
import type { AdminKey, Store } from '../store/store.js';
import type { AdminKeyVerifier } from './admin-keys.js';
import { RateLimitedError, ServiceError } from './errors.js';
import type { LoginGuard } from './login-guard/login-guard.js';

/** Use is written down at most this often per session: the idle timeout is this precise. */
const TOUCH_RESOLUTION_MS = 60_000;

export interface ConsoleSessionOptions {
  /** A session unused this long ends. */
  idleTimeoutMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  lifetimeMs: number;
  /** Failed sign-ins count here, with every other failed login of the address. */
  guard?: LoginGuard;
}

/** A session that was just started: `id` goes into the cookie and nowhere else. */
export interface StartedSession {
  id: string;
  csrfToken: string;
  adminKey: AdminKey;
  expiresAt: string;
}

/** A session found by its id, with the admin key it acts as. */
export interface ActiveSession {
  csrfToken: string;
  adminKey: AdminKey;
  expiresAt: string;
}

/**
 * Console sign-in: an admin key is exchanged for a session kept in the database (so any server process
 * accepts it), of which only the id's digest is stored. Each use checks the key again through the
 * admin key verifier, which drops what it remembers on every admin key change notice: revoking a key
 * ends its sessions as soon as the change reaches the process.
 */
export class ConsoleSessionService {
  private readonly guard: LoginGuard | undefined;

  constructor(
    private readonly store: Store,
    private readonly keys: AdminKeyVerifier,
    private readonly options: ConsoleSessionOptions,
  ) {
    this.guard = options.guard;
  }

  get idleTimeoutMs(): number {
    return this.options.idleTimeoutMs;
  }

  get lifetimeMs(): number {
    return this.options.lifetimeMs;
  }

  async signIn(key: unknown, address?: string): Promise<StartedSession> {
    const attempt = { address };
    const verdict = await this.guard?.check(attempt);
    if (verdict && !verdict.allowed) {
      throw new RateLimitedError(
        `Too many failed logins from your address. Wait ${verdict.retryAfterSeconds} seconds before trying again.`,
        verdict.retryAfterSeconds,
      );
    }
    const adminKey =
      typeof key === 'string' && /^[\x21-\x7e]{1,200}$/.test(key) ? await this.keys.verify(key) : undefined;
    if (!adminKey) {
      await this.guard?.failed(attempt);
      throw new ServiceError(
        'invalid_credentials',
        'That admin key is not valid (unknown or revoked). Create one with: menu-api admin-key create --scope all',
      );
    }
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
      adminKeyId: adminKey.id,
      createdAt: at,
      lastSeenAt: at,
      expiresAt,
    });
    return { id, csrfToken: csrfTokenOf(id), adminKey, expiresAt };
  }

  /** The session of a cookie's id, or undefined when it is unknown, over, or its key was revoked. */
  async resolve(id: string): Promise<ActiveSession | undefined> {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) return undefined;
    const digest = secretDigest(id);
    const session = await this.store.consoleSessions.find(digest);
    if (!session) return undefined;
    const now = Date.now();
    const idleSince = Date.parse(session.lastSeenAt);
    const over = Date.parse(session.expiresAt) <= now || idleSince + this.options.idleTimeoutMs <= now;
    const adminKey = over ? undefined : await this.keys.verifyId(session.adminKeyId);
    if (!adminKey) {
      await this.store.consoleSessions.remove(digest);
      return undefined;
    }
    if (now - idleSince >= TOUCH_RESOLUTION_MS) {
      await this.store.consoleSessions.touch(digest, new Date(now).toISOString());
    }
    return { csrfToken: csrfTokenOf(id), adminKey, expiresAt: session.expiresAt };
  }

  /** Whether `token` is the CSRF token of the session `id` (constant time). */
  csrfMatches(id: string, token: unknown): boolean {
    return typeof token === 'string' && safeEqual(token, csrfTokenOf(id));
  }

  async signOut(id: string): Promise<void> {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) return;
    await this.store.consoleSessions.remove(secretDigest(id));
  }
}

/**
 * The CSRF token is derived from the session id, so it is bound to the session and needs no storage;
 * knowing it tells nothing of the id (SHA-256 of a 256-bit secret).
 */
function csrfTokenOf(id: string): string {
  return sha256(`console-csrf\n${id}`, 'base64').replace(/=+$/, '');
}
