import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { chunks, type Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import type {
  Actor,
  AttemptResult,
  ClaimedDelivery,
  DeliveryRetry,
  DeliveryStatus,
  MenuChange,
  WebhookAttempt,
  WebhookDelivery,
  WebhookOutboxRepository,
} from '../store.js';
import { type ChangeRecord, now, OPERATOR, type Writer } from '../write.js';

/** The webhook-id of a delivery: unique per change and endpoint, the same on every attempt. */
export function deliveryId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

function toDelivery(
  row: Selectable<Database['webhook_deliveries']>,
  attempts: WebhookAttempt[],
): WebhookDelivery {
  return {
    id: row.id,
    webhookId: Number(row.webhook_id),
    seq: Number(row.seq),
    type: row.type,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastLatencyMs: row.last_latency_ms === null ? null : Number(row.last_latency_ms),
    lastError: row.last_error,
    lastResponse: row.last_response,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    attemptLog: attempts,
  };
}

/**
 * The outbox: called in the transaction that writes changes to the feed, it adds one delivery per
 * change and enabled webhook of that dispensary that wants the change's type, and whose credential
 * may still read the dispensary. Both commit together, or neither does.
 */
export async function enqueueDeliveries(
  dialect: Dialect,
  trx: Transaction<Database>,
  rows: readonly MenuChange[],
): Promise<void> {
  if (rows.length === 0) return;
  const dispensaries = [...new Set(rows.map((row) => row.dispensaryId))];
  const at = now();
  const hooks = await trx
    .selectFrom('webhooks as w')
    .innerJoin('credentials as c', 'c.id', 'w.credential_id')
    .select(['w.id', 'w.dispensary_id', 'w.events', 'c.dispensary_ids'])
    .where('w.dispensary_id', 'in', dispensaries)
    .where('w.enabled', '=', 1)
    .where('c.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('c.expires_at', 'is', null), eb('c.expires_at', '>', at)]))
    .orderBy('w.id')
    .execute();
  if (hooks.length === 0) return;
  const deliveries: Database['webhook_deliveries'][] = [];
  for (const hook of hooks) {
    const allowed = hook.dispensary_ids === null ? null : (JSON.parse(hook.dispensary_ids) as number[]);
    const dispensaryId = Number(hook.dispensary_id);
    if (allowed && !allowed.includes(dispensaryId)) continue;
    const events = hook.events === null ? null : (JSON.parse(hook.events) as string[]);
    for (const row of rows) {
      if (row.dispensaryId !== dispensaryId) continue;
      if (events && !events.includes(row.type)) continue;
      deliveries.push({
        id: deliveryId(),
        webhook_id: Number(hook.id),
        dispensary_id: dispensaryId,
        seq: row.seq,
        type: row.type,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        lease_until: null,
        claim: null,
        last_status: null,
        last_latency_ms: null,
        last_error: null,
        last_response: null,
        created_at: at,
        delivered_at: null,
      });
    }
  }
  for (const chunk of chunks(dialect, deliveries, 16)) {
    await trx.insertInto('webhook_deliveries').values(chunk).execute();
  }
}

/** The change notice and audit entry of a write to a webhook (or its deliveries). */
export function webhookChange(
  id: number,
  dispensaryId: number,
  action: string,
  detail: Record<string, unknown>,
): ChangeRecord {
  return { kind: 'webhook', dispensaryId, subject: String(id), action, detail: { id, ...detail } };
}

/** The outbox of webhook deliveries: what the dispatcher claims and records, and what an operator retries. */
export class WebhookOutbox implements WebhookOutboxRepository {
  constructor(
    protected readonly dialect: Dialect,
    protected readonly writer: Writer,
  ) {}

  private async attemptsOf(ids: string[]): Promise<Map<string, WebhookAttempt[]>> {
    const byDelivery = new Map<string, WebhookAttempt[]>();
    if (ids.length === 0) return byDelivery;
    const rows = await this.dialect.db
      .selectFrom('webhook_attempts')
      .select(['delivery_id', 'at', 'status_code', 'latency_ms', 'error'])
      .where('delivery_id', 'in', ids)
      .orderBy('id')
      .execute();
    for (const row of rows) {
      const list = byDelivery.get(row.delivery_id) ?? [];
      list.push({
        at: row.at,
        statusCode: row.status_code === null ? null : Number(row.status_code),
        latencyMs: Number(row.latency_ms),
        error: row.error,
      });
      byDelivery.set(row.delivery_id, list);
    }
    return byDelivery;
  }

  async deliveries(webhookId: number, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.dialect.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('seq', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    const attempts = await this.attemptsOf(rows.map((row) => row.id));
    return rows.map((row) => toDelivery(row, attempts.get(row.id) ?? []));
  }

  async delivery(webhookId: number, id: string): Promise<WebhookDelivery | undefined> {
    if (!this.dialect.canStoreText(id)) return undefined;
    const row = await this.dialect.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return toDelivery(row, (await this.attemptsOf([row.id])).get(row.id) ?? []);
  }

  async retry(webhookId: number, id: string, actor: Actor = OPERATOR): Promise<DeliveryRetry | undefined> {
    if (!this.dialect.canStoreText(id)) return undefined;
    const outcome = await this.writer.write({ actor }, async (trx) => {
      // Never a delivered one: made pending, it would be the oldest of its endpoint's queue, and a
      // failed re-send would hold every newer delivery behind its retry.
      const row = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now() })
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .where('status', '<>', 'delivered')
        .returning(['dispensary_id', 'seq'])
        .executeTakeFirst();
      if (!row) return { result: 'not retried' as const };
      return {
        result: 'retried' as const,
        change: webhookChange(webhookId, Number(row.dispensary_id), 'webhook.retry', {
          delivery_id: id,
          cursor: String(row.seq),
        }),
      };
    });
    const delivery = await this.delivery(webhookId, id);
    if (!delivery) return undefined;
    return { retried: outcome === 'retried', delivery };
  }

  /** Due deliveries, each the head of its endpoint's queue, oldest due first. */
  private dueQuery(db: Kysely<Database> | Transaction<Database>, at: string, limit: number) {
    return (
      db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .select([
          'd.id',
          'd.webhook_id',
          'd.dispensary_id',
          'd.seq',
          'd.type',
          'd.attempts',
          'w.url',
          'w.secret_ciphertext',
          'w.form',
        ])
        .where('d.status', '=', 'pending')
        .where('w.enabled', '=', 1)
        .where('d.next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', at)]))
        // Only the head of each endpoint's queue: a later change waits for an earlier one. The heads are
        // found per endpoint (one index probe each, on webhook_deliveries_queue: an endpoint has one
        // delivery per cursor, so seq alone orders them) rather than per pending delivery: checking
        // every pending delivery against its endpoint's head cost time in the square of the backlog,
        // so a backlog (a full sync's hundreds of changes) slowed delivery to a crawl.
        .where('d.id', 'in', (eb) =>
          eb
            .selectFrom('webhooks as q')
            .select((inner) =>
              inner
                .selectFrom('webhook_deliveries as h')
                .select('h.id')
                .whereRef('h.webhook_id', '=', 'q.id')
                .where('h.status', '=', 'pending')
                .orderBy('h.seq')
                .limit(1)
                .as('head'),
            )
            .where('q.enabled', '=', 1),
        )
        .orderBy('d.next_attempt_at')
        .limit(limit)
    );
  }

  async claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    // A plain read first: most rounds find nothing due, and then take no write lock (SQLite) at all.
    if (!(await this.dueQuery(this.dialect.db, now(), 1).executeTakeFirst())) return [];
    const claim = randomBytes(12).toString('base64url');
    const claimed = await this.dialect.db.transaction().execute(async (trx) => {
      let query = this.dueQuery(trx, now(), limit);
      if (this.dialect.skipLocked) query = query.forUpdate('d').skipLocked();
      const rows = await query.execute();
      if (rows.length === 0) return [];
      const leaseUntil = new Date(Date.now() + leaseMs).toISOString();
      await trx
        .updateTable('webhook_deliveries')
        .set({ lease_until: leaseUntil, claim })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows;
    });
    if (claimed.length === 0) return [];
    const changes = await this.changesAt(claimed.map((row) => Number(row.seq)));
    return claimed.map((row) => ({
      id: row.id,
      webhookId: Number(row.webhook_id),
      dispensaryId: Number(row.dispensary_id),
      seq: Number(row.seq),
      type: row.type,
      attempts: Number(row.attempts),
      claim,
      url: row.url,
      secretCiphertext: row.secret_ciphertext,
      form: row.form,
      change: changes.get(Number(row.seq)),
    }));
  }

  /** The stored changes with these cursors (menu_changes is the live feed's). */
  private async changesAt(seqs: number[]): Promise<Map<number, MenuChange>> {
    const rows = await this.dialect.db
      .selectFrom('menu_changes')
      .select(['seq', 'dispensary_id', 'at', 'type', 'item_id', 'reason', 'item'])
      .where('seq', 'in', [...new Set(seqs)])
      .execute();
    return new Map(
      rows.map((row) => [
        Number(row.seq),
        {
          seq: Number(row.seq),
          dispensaryId: Number(row.dispensary_id),
          at: row.at,
          type: row.type as MenuChange['type'],
          itemId: row.item_id === null ? null : Number(row.item_id),
          reason: row.reason as MenuChange['reason'],
          item: row.item,
        },
      ]),
    );
  }

  async record(delivery: ClaimedDelivery, result: AttemptResult): Promise<boolean> {
    return this.dialect.db.transaction().execute(async (trx) => {
      const at = now();
      const { outcome } = result;
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({
          status: outcome.status === 'retry' ? 'pending' : outcome.status,
          attempts: delivery.attempts + 1,
          ...(outcome.status === 'retry' ? { next_attempt_at: outcome.at } : {}),
          lease_until: null,
          claim: null,
          last_status: result.statusCode,
          last_latency_ms: result.latencyMs,
          last_error: result.error,
          last_response: result.response,
          ...(outcome.status === 'delivered' ? { delivered_at: at } : {}),
        })
        .where('id', '=', delivery.id)
        .where('claim', '=', delivery.claim)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.id,
          at: result.at,
          status_code: result.statusCode,
          latency_ms: result.latencyMs,
          error: result.error,
        })
        .execute();
      if (outcome.status === 'delivered') {
        await trx
          .updateTable('webhooks')
          .set({ failing_since: null })
          .where('id', '=', delivery.webhookId)
          .where('failing_since', 'is not', null)
          .execute();
      } else {
        await trx
          .updateTable('webhooks')
          .set({ failing_since: result.at })
          .where('id', '=', delivery.webhookId)
          .where('failing_since', 'is', null)
          .execute();
      }
      return true;
    });
  }

  async nextDue(): Promise<string | undefined> {
    const row = await this.dialect.db
      .selectFrom('webhook_deliveries')
      .select(({ fn }) => fn.min<string>('next_attempt_at').as('due'))
      .where('status', '=', 'pending')
      .where('next_attempt_at', '>', now())
      .executeTakeFirst();
    return row?.due ?? undefined;
  }
}
