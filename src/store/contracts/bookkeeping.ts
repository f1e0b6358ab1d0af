// Request bookkeeping: answers kept for retried admin requests, console sign-ins, usage counters.

export interface IdempotentAnswer {
  requestDigest: string;
  status: number;
  response: string;
  createdAt: string;
}

/** Answers kept for retried admin requests that carry an Idempotency-Key. */
export interface IdempotencyRepository {
  find(adminKeyId: number, key: string, notBefore: string): Promise<IdempotentAnswer | undefined>;
  /** Saves the answer, replacing an expired one under the same key; a live one already there is kept. */
  save(adminKeyId: number, key: string, answer: IdempotentAnswer): Promise<void>;
  /** Records the answer of a write that claimed the key in its own transaction (idempotency-claim.ts). */
  complete(
    adminKeyId: number,
    key: string,
    answer: Pick<IdempotentAnswer, 'status' | 'response'>,
  ): Promise<void>;
  /** Drops a claim whose write answered with an error: the key may be used again. */
  release(adminKeyId: number, key: string): Promise<void>;
  deleteBefore(before: string): Promise<void>;
}

/** A console sign-in, found by the digest of the id its cookie carries. */
export interface ConsoleSession {
  idDigest: string;
  /** Exactly one of the two: the admin key the session acts as, or the account signed in. */
  adminKeyId: number | null;
  accountId: number | null;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** Console sessions: bookkeeping (no change notice, no audit entry). */
export interface ConsoleSessionRepository {
  create(session: ConsoleSession): Promise<void>;
  find(idDigest: string): Promise<ConsoleSession | undefined>;
  /** Records use, for the idle timeout. */
  touch(idDigest: string, at: string): Promise<void>;
  remove(idDigest: string): Promise<boolean>;
  /** Ends every session of the account (sign out everywhere, a new password, a removed account). */
  removeOfAccount(accountId: number): Promise<number>;
  /** Deletes the sessions past their absolute end or idle since before `idleBefore`. */
  removeEnded(expiredBefore: string, idleBefore: string): Promise<void>;
}

/** Requests of one credential in one hour. */
export interface UsageCount {
  username: string;
  /** The hour's start, ISO 8601. */
  hour: string;
  requests: number;
}

/** Request counters per credential and hour, added to in batches. */
export interface UsageRepository {
  /** Adds each count to its row (created at 0), in one transaction. */
  add(counts: readonly UsageCount[]): Promise<void>;
  /** Every row from that hour on, oldest first. */
  since(hour: string): Promise<UsageCount[]>;
}
