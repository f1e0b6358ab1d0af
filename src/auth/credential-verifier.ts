import { randomBytes } from 'node:crypto';
import type { Credential, CredentialRepository } from '../store/store.js';
import { DEFAULT_SCRYPT_COST, hashPassword, type ScryptCost, verifyPassword } from './password.js';
import { sha256 } from './secrets.js';

export interface VerifiedCredential {
  credentialId: number;
  username: string;
  /** The dispensaries this credential may read; null for every dispensary. */
  dispensaryIds: number[] | null;
}

export interface CredentialVerifierOptions {
  /** How long a verified username and password pair is remembered. */
  rememberMs: number;
  scryptCost?: ScryptCost;
  /** The password check (scrypt); the tests pass a counting wrapper of the real one. */
  checkPassword?: typeof verifyPassword;
}

/** A pair that verified, and until when it is remembered. */
export interface RememberedCredential {
  /** Frozen: handed to every request as it is, so no caller can change what the next one sees. */
  readonly verified: VerifiedCredential;
  readonly expiresAt: number;
}

/**
 * Checks a username and password. A pair that verified is remembered under a keyed hash of both
 * (never the password itself) for a short time, so repeat requests skip scrypt. A failed check
 * always pays a full scrypt, also for an unknown username, so neither timing nor the answer tells
 * which part was wrong. Credential rows are kept by username after the first lookup (only usernames
 * that exist, so guessing cannot grow the map), so a new password for a known user does not query.
 */
export class CredentialVerifier {
  private readonly pairs = new Map<string, RememberedCredential>();
  private readonly keysByUsername = new Map<string, Set<string>>();
  private readonly rows = new Map<string, Credential>();
  /**
   * Checks under way, by pair key: requests with a pair not yet remembered share its one check instead
   * of each paying scrypt (after a restart, a client's burst of requests would otherwise queue as many
   * scrypt runs, each slower for the others, until requests time out). Cleared by every forget, so no
   * request joins a check that began before a revoke.
   */
  private readonly checking = new Map<string, Promise<VerifiedCredential | undefined>>();
  /** Renewed by every forget: a check that began before a change is not remembered after it. */
  private generation = 0;
  /** Per-process key: the cache keys are useless outside this process. */
  private readonly cacheKey = randomBytes(32).toString('hex');
  private readonly decoyHash: Promise<string>;

  constructor(
    /** Only lookups by username: the verifier never writes. */
    private readonly credentials: Pick<CredentialRepository, 'find'>,
    private readonly options: CredentialVerifierOptions,
  ) {
    this.decoyHash = hashPassword(randomBytes(16).toString('hex'), options.scryptCost ?? DEFAULT_SCRYPT_COST);
  }

  /**
   * The pair's verdict when it is remembered, with until when, without any waiting: the path of a
   * request whose answer is not remembered whole (src/services/remembered-grants.ts). Undefined means
   * "not remembered" (call `verify`), never "wrong".
   */
  remembered(username: string, password: string): RememberedCredential | undefined {
    return this.rememberedUnder(this.keyOf(username, password), username);
  }

  async verify(username: string, password: string): Promise<VerifiedCredential | undefined> {
    const key = this.keyOf(username, password);
    const known = this.rememberedUnder(key, username);
    if (known) return known.verified;
    const pending = this.checking.get(key);
    if (pending) return pending;
    const check = this.check(username, password, key).finally(() => {
      if (this.checking.get(key) === check) this.checking.delete(key);
    });
    this.checking.set(key, check);
    return check;
  }

  private async check(
    username: string,
    password: string,
    key: string,
  ): Promise<VerifiedCredential | undefined> {
    const generation = this.generation;
    const credential = await this.lookup(username, generation);
    const expiry = credential?.expiresAt ? Date.parse(credential.expiresAt) : Number.POSITIVE_INFINITY;
    const usable = credential && credential.revokedAt === null && expiry > Date.now();
    const check = this.options.checkPassword ?? verifyPassword;
    const matches = await check(password, usable ? credential.passwordHash : await this.decoyHash);
    if (!usable || !matches) return undefined;

    const verified: VerifiedCredential = Object.freeze({
      credentialId: credential.id,
      username,
      dispensaryIds: credential.dispensaryIds,
    });
    // Never remembered past the credential's own expiry, nor when it changed during the check (a revoke).
    if (this.generation === generation) {
      this.remember(key, { verified, expiresAt: Math.min(Date.now() + this.options.rememberMs, expiry) });
    }
    return verified;
  }

  /** Forgets every remembered password of that username (on revoke, at once). */
  forget(username: string): void {
    for (const key of this.keysByUsername.get(username) ?? []) this.pairs.delete(key);
    this.keysByUsername.delete(username);
    this.rows.delete(username);
    this.checking.clear();
    this.generation++;
  }

  forgetAll(): void {
    this.pairs.clear();
    this.keysByUsername.clear();
    this.rows.clear();
    this.checking.clear();
    this.generation++;
  }

  private async lookup(username: string, generation: number): Promise<Credential | undefined> {
    const known = this.rows.get(username);
    if (known) return known;
    const found = await this.credentials.find(username);
    if (found && this.generation === generation) this.rows.set(username, found);
    return found;
  }

  /**
   * A keyed hash (a secret prefix, then the pair): the username's length goes first, so that no other
   * pair (`a\0b` + `c` against `a` + `b\0c`) can produce the same input. One-shot SHA-256 rather than
   * an HMAC object: this runs on every request, and costs a fifth as much (bench/PROFILE.md).
   */
  private keyOf(username: string, password: string): string {
    return sha256(`${this.cacheKey}${username.length}:${username}\0${password}`, 'base64');
  }

  /** The pair remembered under `key`, unless it has expired (then it is forgotten). */
  private rememberedUnder(key: string, username: string): RememberedCredential | undefined {
    const hit = this.pairs.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt > Date.now()) return hit;
    this.drop(key, username);
    return undefined;
  }

  private remember(key: string, entry: RememberedCredential): void {
    this.pairs.set(key, entry);
    const username = entry.verified.username;
    let keys = this.keysByUsername.get(username);
    if (!keys) {
      keys = new Set();
      this.keysByUsername.set(username, keys);
    }
    keys.add(key);
  }

  private drop(key: string, username: string): void {
    this.pairs.delete(key);
    this.keysByUsername.get(username)?.delete(key);
  }
}
