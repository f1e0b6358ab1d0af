import { CredentialVerifier, type VerifiedCredential } from '../auth/credential-verifier.js';
import type { ScryptCost } from '../auth/password.js';
import { secretDigest } from '../auth/secrets.js';
import type { Dispensary, Store } from '../store/store.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { AccessRequest } from './access-request.js';
import type { ChangeFeed } from './change-feed.js';
import { RateLimitedError, ServiceError, withoutStack } from './errors.js';
import type { LoginAttempt, LoginGuard, LoginVerdict } from './login-guard/login-guard.js';
import { RememberedGrants } from './remembered-grants.js';

const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * A login attempt whose username is read only when the login guard reads it: while nobody has failed
 * lately, a remembered answer is given without the credentials' pair being read (AccessRequest.sentAs).
 */
class Attempt implements LoginAttempt {
  constructor(
    private readonly request: AccessRequest,
    readonly address: string | undefined,
  ) {}

  get username(): string {
    return this.request.username;
  }
}

export interface Granted {
  credential: VerifiedCredential;
  dispensary: Dispensary;
}

/**
 * What the access check answers: the grant, or the refusal to send (401, 403, 429) as a value. A
 * refusal is normal traffic (a client polling with an old token), and a `throw` costs more than the
 * answer: V8 records where each exception was thrown, by walking the stack (bench/PROFILE.md, round
 * six). Exceptions are left to faults (a database that does not answer).
 */
export type Grant = Granted | ServiceError;

export interface AccessOptions {
  rememberCredentialsMs: number;
  scryptCost?: ScryptCost;
  /** Refuses guessing before any scrypt work; left out, failed logins are not counted. */
  guard?: LoginGuard;
  /** Counts each granted request per credential (the console's Usage page). */
  usage?: { count(username: string): void };
}

/** Unknown token digests remembered at most (see AccessService.unknownTokens). */
const UNKNOWN_TOKENS_KEPT = 4096;

/**
 * A refusal as common as a read (a client polling with an old token): one error, made once without a
 * stack trace and frozen, answered every time (its code and message never vary).
 */
const INVALID_TOKEN = Object.freeze(
  withoutStack(
    () =>
      new ServiceError(
        'invalid_token',
        'The dispensary token is not valid (unknown, or replaced by a newer one and past its grace period). Ask the dispensary for its current token.',
      ),
  ),
);

/**
 * Decides who may read which dispensary: credentials first (401), then the dispensary token (403).
 * Both lookups are remembered in memory and dropped on the matching change notice.
 */
/** When the token a dispensary was found by stops working: a rotated-out token's grace end, else never. */
function tokenGraceEnd(dispensary: Dispensary): number {
  return dispensary.tokenExpiresAt ? Date.parse(dispensary.tokenExpiresAt) : Number.POSITIVE_INFINITY;
}

export class AccessService {
  private readonly verifier: CredentialVerifier;
  /** Token digest to dispensary, only for tokens that matched: misses are never stored. */
  private readonly dispensaries = new Map<string, Dispensary>();
  /**
   * Digests of tokens that matched no dispensary, so that a client polling with a wrong token is told
   * so from memory: at most UNKNOWN_TOKENS_KEPT (then it starts over, so guessing cannot fill memory),
   * dropped by every dispensary change (a new dispensary or token may be one of them).
   */
  private readonly unknownTokens = new Set<string>();
  /** Renewed by every forget: a token lookup that began before a change is not remembered after it. */
  private dispensaryGeneration = 0;
  /** Whole answers (pair and token) given from memory, cleared with every forget of either. */
  private readonly grants = new RememberedGrants();
  private readonly lastNoted = new Map<string, number>();
  private readonly guard: LoginGuard | undefined;
  private readonly usage: AccessOptions['usage'];

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
    options: AccessOptions,
  ) {
    this.guard = options.guard;
    this.usage = options.usage;
    this.verifier = new CredentialVerifier(store.credentials, {
      rememberMs: options.rememberCredentialsMs,
      scryptCost: options.scryptCost,
    });
    feed.subscribe((change) => {
      if (change.kind === 'credential') {
        // No subject: every credential may have changed (the change feed after an outage).
        if (change.subject === null) this.verifier.forgetAll();
        else this.verifier.forget(change.subject);
        this.grants.clear();
      }
      if (change.kind === 'dispensary') this.forgetDispensary(change.dispensaryId);
    });
  }

  /**
   * Credentials first (401), then the token (403). Answers at once, without a promise, when all it
   * needs is in memory (the login guard's verdict, a remembered pair, a remembered token): the path of
   * nearly every request, where a promise per step would cost more than the checks (bench/PROFILE.md).
   * Anything else (a first use, scrypt, Redis) takes the asynchronous path. `address`: the client's,
   * for the login guard (failed logins per address).
   */
  grant(request: AccessRequest, address?: string): MaybePromise<Grant> {
    const attempt = new Attempt(request, address);
    return andThen(this.guard?.check(attempt), (verdict) => this.grantAfterGuard(request, attempt, verdict));
  }

  private grantAfterGuard(
    request: AccessRequest,
    attempt: LoginAttempt,
    verdict: LoginVerdict | undefined,
  ): MaybePromise<Grant> {
    if (verdict && !verdict.allowed) {
      return new RateLimitedError(
        `Too many failed logins. Wait ${verdict.retryAfterSeconds} seconds before trying again.`,
        verdict.retryAfterSeconds,
      );
    }
    // Failures of this pair to clear first (guard.succeeded) go the asynchronous way.
    if (verdict?.pairFailures) return this.grantSlowly(request, attempt, verdict);
    const now = Date.now();
    const key = this.grants.keyOf(request);
    const known = this.grants.answer(key, now);
    if (known !== undefined) {
      return known instanceof ServiceError ? known : this.admit(known.credential, known.dispensary);
    }
    const remembered = this.verifier.remembered(request.username, request.password);
    const digest = remembered ? secretDigest(request.token) : undefined;
    const dispensary = digest && this.rememberedDispensary(digest);
    if (remembered && dispensary) {
      const credential = remembered.verified;
      const until = Math.min(remembered.expiresAt, tokenGraceEnd(dispensary));
      this.grants.remember(key, { credential, dispensary }, until);
      return this.admit(credential, dispensary);
    }
    if (remembered && digest && this.unknownTokens.has(digest)) {
      this.grants.remember(key, INVALID_TOKEN, remembered.expiresAt);
      return INVALID_TOKEN;
    }
    return this.grantSlowly(request, attempt, verdict);
  }

  private async grantSlowly(
    request: AccessRequest,
    attempt: LoginAttempt,
    verdict: LoginVerdict | undefined,
  ): Promise<Grant> {
    const credential = await this.verifier.verify(request.username, request.password);
    if (!credential) {
      await this.guard?.failed(attempt);
      return new ServiceError(
        'invalid_credentials',
        'The username or password is wrong. Check the credential the operator issued to you.',
      );
    }
    if (verdict && verdict.pairFailures > 0) await this.guard?.succeeded(attempt);
    const dispensary = await this.dispensaryFor(request.token);
    if (!dispensary) return INVALID_TOKEN;
    return this.admit(credential, dispensary);
  }

  /** The last check, on both paths: the credential's scope. */
  private admit(credential: VerifiedCredential, dispensary: Dispensary): Grant {
    if (credential.dispensaryIds && !credential.dispensaryIds.includes(dispensary.id)) {
      return new ServiceError(
        'forbidden',
        'This credential may not read this dispensary. Ask the operator to extend the credential, or use another one.',
      );
    }
    this.noteUse(credential.username);
    this.usage?.count(credential.username);
    return { credential, dispensary };
  }

  /** The dispensary of a token digest, when remembered (a token in its grace period only until it ends). */
  private rememberedDispensary(digest: string): Dispensary | undefined {
    const known = this.dispensaries.get(digest);
    if (!known) return undefined;
    if (tokenGraceEnd(known) > Date.now()) return known;
    this.dispensaries.delete(digest);
    return undefined;
  }

  private async dispensaryFor(token: string): Promise<Dispensary | undefined> {
    const digest = secretDigest(token);
    const known = this.rememberedDispensary(digest);
    if (known) return known;
    const generation = this.dispensaryGeneration;
    const found = await this.store.dispensaries.findByTokenDigest(digest);
    if (generation === this.dispensaryGeneration) {
      if (found) this.dispensaries.set(digest, found);
      else {
        if (this.unknownTokens.size >= UNKNOWN_TOKENS_KEPT) this.unknownTokens.clear();
        this.unknownTokens.add(digest);
      }
    }
    return found;
  }

  /** Records last use at most once a minute per credential, off the request's path. */
  private noteUse(username: string): void {
    const now = Date.now();
    if ((this.lastNoted.get(username) ?? 0) > now - LAST_USE_RESOLUTION_MS) return;
    this.lastNoted.set(username, now);
    this.store.credentials.touch(username, new Date(now).toISOString()).catch(() => {
      // Last use is informational; a failed write is retried on a later request.
      this.lastNoted.delete(username);
    });
  }

  private forgetDispensary(id: number | null): void {
    this.dispensaryGeneration += 1;
    this.unknownTokens.clear();
    this.grants.clear();
    for (const [digest, dispensary] of this.dispensaries) {
      if (id === null || dispensary.id === id) this.dispensaries.delete(digest);
    }
  }
}
