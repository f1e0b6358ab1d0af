import { secretDigest } from '../auth/secrets.js';
import type { MenuChange, Store } from '../store/store.js';
import type { Granted } from './access.js';
import type { ChangeFeed } from './change-feed.js';
import { RateLimitedError, ServiceError } from './errors.js';

/** Why the hub ended a subscription. */
export type EndReason = 'revoked' | 'token' | 'removed' | 'shutdown' | 'slow' | 'closed' | 'reset';

/**
 * Who a stream reads as, so that the hub can end it when that no longer holds: the credential is
 * revoked or expires, the token is rotated out (after its grace period), the dispensary is removed.
 */
export interface StreamAccess {
  username: string;
  /** The digest of the token the stream was opened with. */
  tokenDigest: string;
  /** When the credential expires (ms since the epoch); undefined: never. */
  credentialExpiresAt?: number;
  /** When the token stops working (a token in its grace period after a rotation); undefined: never. */
  tokenExpiresAt?: number;
}

/** The access of a stream opened with these credentials and token (as `grant` admitted them). */
export function accessOf(granted: Granted, token: string): StreamAccess {
  const { tokenExpiresAt } = granted.dispensary;
  return {
    username: granted.credential.username,
    tokenDigest: secretDigest(token),
    ...(tokenExpiresAt !== undefined && { tokenExpiresAt: Date.parse(tokenExpiresAt) }),
  };
}

/**
 * One consumer of a dispensary's live changes: an event stream of /events, or later another kind (a
 * published-menu stream for menu boards) with its own shape. The hub calls it synchronously.
 */
export interface LiveSubscriber {
  readonly dispensaryId: number;
  /** Set for streams opened with credentials: the hub ends them when the access no longer holds. */
  readonly access?: StreamAccess;
  /** New changes of its dispensary, oldest first; the same objects for every subscriber. */
  changes(batch: readonly MenuChange[]): void;
  /** A heartbeat tick (at most every heartbeatMs): an idle stream writes a comment. */
  heartbeat(): void;
  /** The hub has dropped the subscriber: end the stream. Called once; no call follows. */
  end(reason: EndReason): void;
}

export interface LiveHubOptions {
  /** Most open subscriptions of this process (`--max-streams`). */
  maxStreams: number;
  /** Most open subscriptions per credential (`--max-streams-per-credential`). */
  maxStreamsPerCredential: number;
  /** How often idle streams get a heartbeat comment, ms (`--stream-heartbeat-ms`). */
  heartbeatMs: number;
  /** How often access is checked for expiry (credential expiry, token grace periods), ms. */
  accessCheckMs?: number;
  /** Most changes read from the store per query. */
  readBatch?: number;
}

/** What the hub counts, for /metrics. */
export interface LiveHubCounts {
  open: number;
  refused: Record<'process' | 'credential', number>;
  ended: Record<EndReason, number>;
}

/**
 * The one place a process reads new live changes: woken by the change feed (its own writes, other
 * processes' through LISTEN/NOTIFY on PostgreSQL, the periodic poll otherwise), it reads the new rows
 * of `menu_changes` once per wake, whatever the number of streams, and hands each dispensary's to that
 * dispensary's subscribers. Cursors commit in order (see Writer), so reading after the last one seen
 * never skips a change.
 */
export class LiveHub {
  private lastSeq = 0;
  private started = false;
  private closed = false;
  private readonly byDispensary = new Map<number, Set<LiveSubscriber>>();
  private readonly perCredential = new Map<string, number>();
  private open = 0;
  private reading: Promise<void> | undefined;
  private again = false;
  /** Set after a database outage: the feed may have been restored from a backup (numbered anew). */
  private resync = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private accessTimer: NodeJS.Timeout | undefined;
  private readonly counts: LiveHubCounts = {
    open: 0,
    refused: { process: 0, credential: 0 },
    ended: { revoked: 0, token: 0, removed: 0, shutdown: 0, slow: 0, closed: 0, reset: 0 },
  };
  /** Told of a read that failed (the next wake retries it). */
  onError: ((error: unknown) => void) | undefined;

  constructor(
    private readonly store: Store,
    feed: Pick<ChangeFeed, 'subscribe'>,
    readonly options: LiveHubOptions,
  ) {
    feed.subscribe((change) => {
      if (change.kind === 'menu' && change.dispensaryId === null) {
        // The change feed recovered from an outage: everything may have changed.
        this.resync = true;
        this.wake();
      } else if (change.kind === 'menu' || change.kind === 'store') this.wake();
      else if (change.kind === 'dispensary') {
        this.wake();
        this.recheck(
          (subscriber) => change.dispensaryId === null || subscriber.dispensaryId === change.dispensaryId,
        );
      } else if (change.kind === 'credential') {
        this.recheck(
          (subscriber) => change.subject === null || subscriber.access?.username === change.subject,
        );
      }
    });
  }

  /** Starts at the feed's current head: subscribers catch up on what is older from the store themselves. */
  async start(): Promise<void> {
    this.lastSeq = await this.store.menuChanges.head();
    this.started = true;
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.options.heartbeatMs);
    this.heartbeatTimer.unref();
    this.accessTimer = setInterval(() => this.expire(), this.options.accessCheckMs ?? 250);
    this.accessTimer.unref();
  }

  /** Ends every subscription (reason `shutdown`) and stops the timers. */
  stop(): void {
    clearInterval(this.heartbeatTimer);
    clearInterval(this.accessTimer);
    this.started = false;
    this.closed = true;
    for (const subscribers of [...this.byDispensary.values()]) {
      for (const subscriber of [...subscribers]) this.drop(subscriber, 'shutdown');
    }
  }

  /** The cursor of the newest change the hub has handed out. */
  get cursor(): number {
    return this.lastSeq;
  }

  get stats(): LiveHubCounts {
    return { ...this.counts, open: this.open };
  }

  /**
   * Adds a subscriber, refusing (429) one over the process's or the credential's limit. From now on
   * it gets every change the hub reads; what is older it reads from the store (see `catchUp`).
   * Returns the function that removes it (without calling its `end`).
   */
  subscribe(subscriber: LiveSubscriber): () => void {
    const username = subscriber.access?.username;
    if (this.closed) {
      throw new ServiceError(
        'unavailable',
        'This server is shutting down. Reconnect (to another server) and resume with Last-Event-ID.',
      );
    }
    if (this.open >= this.options.maxStreams) {
      this.counts.refused.process++;
      throw new RateLimitedError(
        `This server has ${this.options.maxStreams} open event streams, its limit. Retry later, or follow GET/POST /changes instead.`,
        5,
      );
    }
    if (
      username !== undefined &&
      (this.perCredential.get(username) ?? 0) >= this.options.maxStreamsPerCredential
    ) {
      this.counts.refused.credential++;
      throw new RateLimitedError(
        `This credential has ${this.options.maxStreamsPerCredential} open event streams on this server, its limit. Close one first (one stream per dispensary is enough).`,
        5,
      );
    }
    let subscribers = this.byDispensary.get(subscriber.dispensaryId);
    if (!subscribers) {
      subscribers = new Set();
      this.byDispensary.set(subscriber.dispensaryId, subscribers);
    }
    subscribers.add(subscriber);
    this.open++;
    if (username !== undefined) {
      this.perCredential.set(username, (this.perCredential.get(username) ?? 0) + 1);
      // Learns the credential's expiry, and catches a revocation that raced the opening.
      this.recheck((other) => other === subscriber);
    }
    return () => this.remove(subscriber);
  }

  /**
   * Ends a subscriber as the hub would (counted under `reason`): for streams that decide it themselves,
   * a slow reader for one.
   */
  end(subscriber: LiveSubscriber, reason: EndReason): void {
    this.drop(subscriber, reason);
  }

  /**
   * Reads what is new once (single flight: a wake during a read makes one more read after it) and
   * hands it out. Called by the change feed's notices; callable directly.
   */
  wake(): Promise<void> {
    if (!this.started) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.again = false;
          await this.readNew();
        } while (this.again);
      } catch (error) {
        this.onError?.(error);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  private async readNew(): Promise<void> {
    if (this.resync) {
      this.resync = false;
      const head = await this.store.menuChanges.head();
      if (head < this.lastSeq) {
        // A database restored from a backup numbers its changes anew: no stream's cursor holds.
        this.lastSeq = head;
        for (const subscribers of [...this.byDispensary.values()]) {
          for (const subscriber of [...subscribers]) this.drop(subscriber, 'reset');
        }
        return;
      }
    }
    const batch = this.options.readBatch ?? 1_000;
    for (;;) {
      const changes = await this.store.menuChanges.since(this.lastSeq, batch);
      if (changes.length === 0) return;
      this.lastSeq = changes.at(-1)!.seq;
      this.deliver(changes);
      if (changes.length < batch) return;
    }
  }

  private deliver(changes: readonly MenuChange[]): void {
    // Grouped per dispensary, each group in cursor order.
    const groups = new Map<number, MenuChange[]>();
    for (const change of changes) {
      if (!this.byDispensary.has(change.dispensaryId)) continue;
      let group = groups.get(change.dispensaryId);
      if (!group) {
        group = [];
        groups.set(change.dispensaryId, group);
      }
      group.push(change);
    }
    for (const [dispensaryId, group] of groups) {
      for (const subscriber of [...(this.byDispensary.get(dispensaryId) ?? [])]) subscriber.changes(group);
    }
  }

  private heartbeat(): void {
    for (const subscribers of this.byDispensary.values()) {
      for (const subscriber of subscribers) subscriber.heartbeat();
    }
  }

  /** Ends the streams whose credential or token has expired by now. */
  private expire(): void {
    const now = Date.now();
    for (const subscribers of [...this.byDispensary.values()]) {
      for (const subscriber of [...subscribers]) {
        const access = subscriber.access;
        if (!access) continue;
        if (access.credentialExpiresAt !== undefined && access.credentialExpiresAt <= now) {
          this.drop(subscriber, 'revoked');
        } else if (access.tokenExpiresAt !== undefined && access.tokenExpiresAt <= now) {
          this.drop(subscriber, 'token');
        }
      }
    }
  }

  /**
   * After a credential or dispensary change: checks the access of the matching streams against the
   * store, once per credential and per token, and ends those it no longer admits.
   */
  private recheck(matches: (subscriber: LiveSubscriber) => boolean): void {
    const affected: LiveSubscriber[] = [];
    for (const subscribers of this.byDispensary.values()) {
      for (const subscriber of subscribers)
        if (subscriber.access && matches(subscriber)) affected.push(subscriber);
    }
    if (affected.length === 0) return;
    void this.checkAccess(affected).catch((error: unknown) => this.onError?.(error));
  }

  private async checkAccess(subscribers: readonly LiveSubscriber[]): Promise<void> {
    const credentials = new Map<string, ReturnType<Store['credentials']['find']>>();
    const tokens = new Map<string, ReturnType<Store['dispensaries']['findByTokenDigest']>>();
    for (const subscriber of subscribers) {
      const access = subscriber.access!;
      if (!credentials.has(access.username))
        credentials.set(access.username, observed(this.store.credentials.find(access.username)));
      if (!tokens.has(access.tokenDigest))
        tokens.set(
          access.tokenDigest,
          observed(this.store.dispensaries.findByTokenDigest(access.tokenDigest)),
        );
    }
    const credentialOf = new Map(
      await Promise.all([...credentials].map(async ([name, found]) => [name, await found] as const)),
    );
    const dispensaryOf = new Map(
      await Promise.all([...tokens].map(async ([digest, found]) => [digest, await found] as const)),
    );
    const now = new Date().toISOString();
    for (const subscriber of subscribers) {
      const access = subscriber.access!;
      const credential = credentialOf.get(access.username);
      const dispensary = dispensaryOf.get(access.tokenDigest);
      if (
        !credential ||
        credential.revokedAt !== null ||
        (credential.expiresAt !== null && credential.expiresAt <= now)
      ) {
        this.drop(subscriber, 'revoked');
      } else if (credential.dispensaryIds && !credential.dispensaryIds.includes(subscriber.dispensaryId)) {
        this.drop(subscriber, 'revoked');
      } else if (!dispensary || dispensary.id !== subscriber.dispensaryId) {
        // Removed (its token finds nothing), or the token was rotated out at once.
        const exists = await this.store.dispensaries.get(subscriber.dispensaryId);
        this.drop(subscriber, exists ? 'token' : 'removed');
      } else {
        // A rotation with a grace period: the stream ends when the old token does.
        access.tokenExpiresAt = dispensary.tokenExpiresAt ? Date.parse(dispensary.tokenExpiresAt) : undefined;
        access.credentialExpiresAt = credential.expiresAt ? Date.parse(credential.expiresAt) : undefined;
      }
    }
  }

  private remove(subscriber: LiveSubscriber): boolean {
    const subscribers = this.byDispensary.get(subscriber.dispensaryId);
    if (!subscribers?.delete(subscriber)) return false;
    if (subscribers.size === 0) this.byDispensary.delete(subscriber.dispensaryId);
    this.open--;
    const username = subscriber.access?.username;
    if (username !== undefined) {
      const left = (this.perCredential.get(username) ?? 1) - 1;
      if (left > 0) this.perCredential.set(username, left);
      else this.perCredential.delete(username);
    }
    return true;
  }

  private drop(subscriber: LiveSubscriber, reason: EndReason): void {
    if (!this.remove(subscriber)) return;
    this.counts.ended[reason]++;
    subscriber.end(reason);
  }
}

/** The promise, with its failure observed (it is still thrown where it is awaited): lookups started together. */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
