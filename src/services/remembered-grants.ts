import { randomBytes } from 'node:crypto';
import type { VerifiedCredential } from '../auth/credential-verifier.js';
import { sha256 } from '../auth/secrets.js';
import type { Dispensary } from '../store/store.js';
import type { AccessRequest } from './access-request.js';
import type { ServiceError } from './errors.js';

/** Grants remembered at most; past it the map starts over, so that guessing tokens cannot fill memory. */
const GRANTS_KEPT = 4096;

/** What the access check answered for a username, password and token, all three from memory. */
export type RememberedAnswer = { credential: VerifiedCredential; dispensary: Dispensary } | ServiceError;

interface Remembered {
  answer: RememberedAnswer;
  /** The earlier of the pair's remembered time and the token's grace period. */
  expiresAt: number;
}

/**
 * The access check's answer for a username, password and token that it has already answered from
 * memory, under one keyed digest of the three (never the secrets themselves). A repeated read then
 * costs one SHA-256 instead of two (the pair's key and the token's digest), one map lookup instead of
 * three, and no hex text of the token's digest (bench/PROFILE.md, round thirty-three). The owner
 * clears it on every credential and dispensary change, exactly when it forgets the pair or the token.
 */
export class RememberedGrants {
  private readonly answers = new Map<string, Remembered>();
  /** Per-process key (128 bits): the keys are useless outside this process. */
  private readonly cacheKey = randomBytes(16).toString('base64');

  /**
   * The three under one key: the pair as it was sent when it came as one text (AccessRequest.sentAs),
   * else the username and the password. Each length goes first, so that no other three (`a\0b` + `c`
   * against `a` + `b\0c`; Form A's JSON may hold a NUL) give the same input, and its separator tells
   * which of the two it is (`b` for a text as sent).
   */
  keyOf(request: AccessRequest): string {
    const { sentAs, token } = request;
    if (sentAs !== undefined) return sha256(`${this.cacheKey}${sentAs.length}b${sentAs}${token}`, 'base64');
    const { username, password } = request;
    return sha256(
      `${this.cacheKey}${username.length}:${username}${password.length}:${password}${token}`,
      'base64',
    );
  }

  /** The answer remembered under `key`, unless it has expired (then it is forgotten). */
  answer(key: string, now: number): RememberedAnswer | undefined {
    const remembered = this.answers.get(key);
    if (remembered === undefined) return undefined;
    if (remembered.expiresAt > now) return remembered.answer;
    this.answers.delete(key);
    return undefined;
  }

  remember(key: string, answer: RememberedAnswer, expiresAt: number): void {
    if (this.answers.size >= GRANTS_KEPT) this.answers.clear();
    this.answers.set(key, { answer, expiresAt });
  }

  clear(): void {
    this.answers.clear();
  }
}
