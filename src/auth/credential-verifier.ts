import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';
import { DEFAULT_SCRYPT_COST, hashPassword, type ScryptCost, verifyPassword } from './password.js';

export interface VerifiedCredential {
  credentialId: number;
  username: string;
}

export interface CredentialVerifierOptions {
  /** How long a verified username and password pair is remembered. */
  rememberMs: number;
  scryptCost?: ScryptCost;
}

interface Remembered extends VerifiedCredential {
  expiresAt: number;
}

/**
 * Checks a username and password. A pair that verified is remembered under a keyed hash of both
 * (never the password itself) for a short time, so repeat requests skip scrypt. A failed check
 * always pays a full scrypt, also for an unknown username, so neither timing nor the answer tells
 * which part was wrong.
 */
export class CredentialVerifier {
  private readonly remembered = new Map<string, Remembered>();
  private readonly keysByUsername = new Map<string, Set<string>>();
  /** Per-process key: the cache keys are useless outside this process. */
  private readonly cacheKey = randomBytes(32);
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly store: Store,
    private readonly options: CredentialVerifierOptions,
  ) {
    this.decoyHash = hashPassword(randomBytes(16).toString('hex'), options.scryptCost ?? DEFAULT_SCRYPT_COST);
  }

  async verify(username: string, password: string): Promise<VerifiedCredential | undefined> {
    const key = createHmac('sha256', this.cacheKey)
      .update(username)
      .update('\0')
      .update(password)
      .digest('base64');
    const hit = this.remembered.get(key);
    if (hit && hit.expiresAt > Date.now()) return { credentialId: hit.credentialId, username: hit.username };
    if (hit) this.drop(key, hit.username);

    const credential = await this.store.findCredential(username);
    const usable = credential && credential.revokedAt === null;
    const matches = await verifyPassword(password, usable ? credential.passwordHash : await this.decoyHash);
    if (!usable || !matches) return undefined;

    this.remember(key, {
      credentialId: credential.id,
      username,
      expiresAt: Date.now() + this.options.rememberMs,
    });
    return { credentialId: credential.id, username };
  }

  /** Forgets every remembered password of that username (on revoke, at once). */
  forget(username: string): void {
    for (const key of this.keysByUsername.get(username) ?? []) this.remembered.delete(key);
    this.keysByUsername.delete(username);
  }

  forgetAll(): void {
    this.remembered.clear();
    this.keysByUsername.clear();
  }

  private remember(key: string, entry: Remembered): void {
    this.remembered.set(key, entry);
    let keys = this.keysByUsername.get(entry.username);
    if (!keys) {
      keys = new Set();
      this.keysByUsername.set(entry.username, keys);
    }
    keys.add(key);
  }

  private drop(key: string, username: string): void {
    this.remembered.delete(key);
    this.keysByUsername.get(username)?.delete(key);
  }
}
