import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';

/** Where the shared-state code reports Redis going away and coming back (a pino logger fits). */
export interface SharedStateLog {
  warn(message: string): void;
  info(message: string): void;
}

export interface SharedRedisOptions {
  /** How long one command may take before it counts as a failure and memory is used instead, ms. */
  commandTimeoutMs?: number;
  /** The longest wait between reconnection attempts while Redis is away, ms. */
  maxReconnectDelayMs?: number;
}

/**
 * One Redis connection shared by the rate limiter and the login guard. Commands are never queued:
 * while Redis is unreachable `usable` is false, callers use their in-memory fallback, and the
 * connection keeps retrying in the background. The outage is logged once (warn) and the recovery
 * once (info).
 */
export class SharedRedis {
  readonly client: Redis;
  private down = false;
  /** After a failed command, Redis is left alone until then (ms), so a hung server costs one timeout. */
  private pauseUntil = 0;
  private closed = false;
  private readonly scripts = new Map<string, string>();
  private readonly url: string;

  constructor(
    url: string,
    private readonly log: SharedStateLog,
    options: SharedRedisOptions = {},
  ) {
    this.url = redactUrl(url);
    const maxDelay = options.maxReconnectDelayMs ?? 2_000;
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      // Keep trying in the background; meanwhile callers fall back to memory instead of waiting.
      retryStrategy: (times) => Math.min(times * 100, maxDelay),
    });
    this.client.on('error', (error: Error) => this.failed(error));
    this.client.on('close', () => {
      if (!this.closed) this.failed(new Error('connection closed'));
    });
    this.client.on('ready', () => this.recovered());
  }

  /** True while commands can be sent. */
  get usable(): boolean {
    return !this.closed && this.client.status === 'ready' && Date.now() >= this.pauseUntil;
  }

  /** Resolves true once connected, false on the first failure or after `timeoutMs`. */
  connected(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        resolve(value);
      };
      const onReady = () => done(true);
      const onError = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.client.once('ready', onReady);
      this.client.once('error', onError);
    });
  }

  /** Notes a failed command or connection; the first failure of an outage is logged. */
  failed(error: unknown): void {
    this.pauseUntil = Date.now() + 1_000;
    if (this.down || this.closed) return;
    this.down = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.log.warn(
      `Redis at ${this.url} is unreachable (${reason}): rate limits and login failures are counted in this process's memory until it returns`,
    );
  }

  /** Runs a Lua script by its digest, loading it on first use (EVALSHA, then EVAL on NOSCRIPT). */
  async script(source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    let sha = this.scripts.get(source);
    if (!sha) {
      sha = createHash('sha1').update(source).digest('hex');
      this.scripts.set(source, sha);
    }
    let result: unknown;
    try {
      result = await this.client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      result = await this.client.eval(source, keys.length, ...keys, ...args);
    }
    this.recovered();
    return result;
  }

  private recovered(): void {
    this.pauseUntil = 0;
    if (!this.down || this.closed) return;
    this.down = false;
    this.log.info(`Redis at ${this.url} is back: rate limits and login failures are shared again`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}

/** A Redis URL as it may appear in a log: without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis (unparsable URL)';
  }
}
