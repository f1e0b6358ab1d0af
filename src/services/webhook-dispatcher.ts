import { Webhook as Signer } from 'standardwebhooks';
import { decryptWebhookSecret } from '../auth/webhook-secrets.js';
import type { AttemptResult, ClaimedDelivery, MenuChange, Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import type { WebhookKeySource } from './webhook-key.js';

/** What sending one delivery found out (src/infra/webhook-http.ts). */
export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  response: string | null;
}

export type SendWebhook = (request: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}) => Promise<SendResult>;

/**
 * A stored change as the `/changes` of the request form a webhook chose (by its id) gives it (`cursor`,
 * `at`, `type`, `item_id`, `item`, `reason`): injected, since services do not import the request forms.
 */
export type RenderChange = (change: MenuChange, form: string) => Promise<{ cursor: string }>;

export interface DispatcherOptions {
  send: SendWebhook;
  render: RenderChange;
  keys: WebhookKeySource;
  /** A delivery not answered 2xx within this time is retried. */
  timeoutMs: number;
  /** Delay before each retry; after the last retry fails, the delivery is failed. */
  retrySchedule: readonly number[];
  /** A webhook that has failed every delivery for this long is disabled. */
  disableAfterMs: number;
  /** Deliveries in flight at once (each to a different endpoint). */
  concurrency?: number;
  /** How often to look for due deliveries when nothing wakes the dispatcher (expired leases, other processes). */
  fallbackMs?: number;
  onAttempt?: (outcome: AttemptResult['outcome']['status'], latencyMs: number) => void;
  onDisabled?: (webhookId: number, reason: string) => void;
  onError?: (error: unknown) => void;
}

/** Who disables a failing webhook, in the audit log. */
export const DISPATCHER_ACTOR = 'webhook-dispatcher';

/**
 * Delivers the outbox. Woken at once when a change is written (the change feed: this process's own
 * writes, LISTEN/NOTIFY on PostgreSQL, polling otherwise), at the time the next retry is due, and by
 * a fallback timer. Each round claims due deliveries, one per endpoint (the oldest pending one:
 * deliveries to an endpoint go in cursor order), under a lease longer than the timeout; no
 * transaction is held open while sending. A process killed mid-delivery leaves the lease to run out,
 * and the delivery is claimed again: at least once. In normal operation, exactly once.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Map<string, Promise<void>>();
  private running = false;
  private pumping: Promise<void> | undefined;
  private again = false;
  /** Set while rounds fail (the database unreachable, say): the failure is reported once, not every round. */
  private failing = false;
  private fallback: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private readonly concurrency: number;
  private readonly leaseMs: number;

  constructor(
    private readonly store: Store,
    private readonly feed: ChangeFeed | undefined,
    private readonly options: DispatcherOptions,
  ) {
    this.concurrency = options.concurrency ?? 16;
    // Longer than any attempt can take, so that a live process never loses its claim.
    this.leaseMs = options.timeoutMs + Math.max(5_000, options.timeoutMs);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.feed?.subscribe(() => this.wake());
    this.fallback = setInterval(() => this.wake(), this.options.fallbackMs ?? 1_000);
    this.fallback.unref();
    this.wake();
  }

  /** Stops claiming; waits for deliveries in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.fallback);
    clearTimeout(this.dueTimer);
    await this.pumping?.catch(() => {});
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Looks for due deliveries now (a change was written, a retry is due). */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .then(() => {
        this.failing = false;
      })
      .catch((error) => {
        if (!this.failing) this.options.onError?.(error);
        this.failing = true;
      })
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    const room = this.concurrency - this.inFlight.size;
    if (room <= 0) return;
    const claimed = await this.store.webhooks.claim(room, this.leaseMs);
    for (const delivery of claimed) {
      const attempt = this.deliver(delivery)
        .catch((error) => this.options.onError?.(error))
        .finally(() => {
          this.inFlight.delete(delivery.id);
          // The endpoint's next delivery may be due now.
          this.wake();
        });
      this.inFlight.set(delivery.id, attempt);
    }
    if (claimed.length === 0 && this.inFlight.size === 0) await this.scheduleNextDue();
  }

  private async scheduleNextDue(): Promise<void> {
    const due = await this.store.webhooks.nextDue();
    clearTimeout(this.dueTimer);
    if (due === undefined || !this.running) return;
    const wait = Math.max(0, Date.parse(due) - Date.now());
    if (wait >= (this.options.fallbackMs ?? 1_000)) return;
    this.dueTimer = setTimeout(() => this.wake(), wait + 1);
    this.dueTimer.unref();
  }

  /** The body and headers of one delivery, its change in the webhook's form, signed with its secret. */
  async sign(delivery: ClaimedDelivery, change: MenuChange, secret: string, at = new Date()) {
    const data = await this.options.render(change, delivery.form);
    const body = JSON.stringify({
      type: change.type,
      dispensary_id: change.dispensaryId,
      cursor: data.cursor,
      at: change.at,
      data,
    });
    const signature = new Signer(secret).sign(delivery.id, at, body);
    return {
      body,
      headers: {
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
    };
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const at = new Date().toISOString();
    let sent: SendResult;
    if (!delivery.change) {
      sent = { statusCode: null, latencyMs: 0, error: 'the change is no longer kept', response: null };
      await this.finish(delivery, at, sent, true);
      return;
    }
    let request: Awaited<ReturnType<WebhookDispatcher['sign']>>;
    try {
      const secret = decryptWebhookSecret(this.options.keys.key(false), delivery.secretCiphertext);
      request = await this.sign(delivery, delivery.change, secret);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sent = { statusCode: null, latencyMs: 0, error: `not signed: ${message}`, response: null };
      await this.finish(delivery, at, sent, false);
      return;
    }
    sent = await this.options.send({ url: delivery.url, ...request, timeoutMs: this.options.timeoutMs });
    await this.finish(delivery, at, sent, false);
  }

  private async finish(
    delivery: ClaimedDelivery,
    at: string,
    sent: SendResult,
    final: boolean,
  ): Promise<void> {
    const ok = sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300;
    const retryIndex = delivery.attempts; // the first retry follows the first attempt
    let outcome: AttemptResult['outcome'];
    if (ok) outcome = { status: 'delivered' };
    else if (final || retryIndex >= this.options.retrySchedule.length) outcome = { status: 'failed' };
    else {
      const delay = this.options.retrySchedule[retryIndex]! * (0.8 + Math.random() * 0.4);
      outcome = { status: 'retry', at: new Date(Date.now() + delay).toISOString() };
    }
    const error = ok
      ? null
      : (sent.error ?? (sent.statusCode === null ? 'no answer' : `answered ${sent.statusCode}`));
    const recorded = await this.store.webhooks.record(delivery, {
      at,
      statusCode: sent.statusCode,
      latencyMs: sent.latencyMs,
      error,
      response: sent.response,
      outcome,
    });
    if (!recorded) return;
    this.options.onAttempt?.(outcome.status, sent.latencyMs);
    if (!ok) await this.disableFailing();
  }

  /** Disables the webhooks that have failed every delivery for longer than disableAfterMs. */
  private async disableFailing(): Promise<void> {
    const before = new Date(Date.now() - this.options.disableAfterMs).toISOString();
    for (const webhook of await this.store.webhooks.failingSince(before)) {
      const reason = `every delivery failed since ${webhook.failingSince}`;
      if (await this.store.webhooks.disable(webhook.id, reason, DISPATCHER_ACTOR)) {
        this.options.onDisabled?.(webhook.id, reason);
      }
    }
  }
}
