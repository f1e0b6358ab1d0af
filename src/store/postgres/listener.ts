import pg from 'pg';

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  connectTimeoutMs: number;
  applicationName: string;
  /** First reconnection delay; it doubles on each failure up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often the connection is checked with a trivial query, so a silently dead one is replaced. */
  pingIntervalMs?: number;
}

/**
 * One dedicated connection doing LISTEN (a pooled connection cannot: LISTEN belongs to a session).
 * When the connection is lost it reconnects with exponential backoff, for as long as it runs. After
 * every successful (re)connection it calls onNotice once, because notices sent while it was away are
 * lost: the caller then reads whatever changed in the meantime.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private backoffMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ListenerOptions,
    private readonly onNotice: () => void,
  ) {
    this.backoffMs = options.minBackoffMs ?? 250;
  }

  /** Resolves after the first attempt, connected or not: a failed first attempt is retried like any other. */
  async start(): Promise<void> {
    await this.connect();
    this.pingTimer = setInterval(() => this.ping(), this.options.pingIntervalMs ?? 30_000);
    this.pingTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      query_timeout: this.options.connectTimeoutMs,
      keepAlive: true,
      application_name: this.options.applicationName,
    });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (message.channel === this.options.channel) this.onNotice();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.options.channel)}`);
    } catch {
      onLost();
      return;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.backoffMs = this.options.minBackoffMs ?? 250;
    this.onNotice();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 5_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private ping(): void {
    const client = this.client;
    if (!client) return;
    // query_timeout bounds the wait; a failure ends the client, and its 'end' event reconnects.
    client.query('select 1').catch(() => client.end().catch(() => {}));
  }
}
