import type { Transaction } from 'kysely';
import { ConflictError } from '../errors.js';
import type { Database } from '../schema.js';
import type { Actor, NewWebhook, Webhook, WebhookEvent, WebhookPatch, WebhookRepository } from '../store.js';
import { now, OPERATOR } from '../write.js';
import { WebhookOutbox, webhookChange } from './webhook-outbox.js';

const WEBHOOK_COLUMNS = [
  'w.id',
  'c.username',
  'w.dispensary_id',
  'w.url',
  'w.events',
  'w.enabled',
  'w.created_at',
  'w.updated_at',
  'w.failing_since',
  'w.disabled_reason',
  'w.form',
] as const;

type WebhookRow = {
  id: number;
  username: string;
  dispensary_id: number;
  url: string;
  events: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
  failing_since: string | null;
  disabled_reason: string | null;
  form: string;
};

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: Number(row.id),
    credential: row.username,
    dispensaryId: Number(row.dispensary_id),
    url: row.url,
    events: row.events === null ? null : (JSON.parse(row.events) as WebhookEvent[]),
    enabled: Number(row.enabled) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    failingSince: row.failing_since,
    disabledReason: row.disabled_reason,
    form: row.form,
  };
}

/**
 * Refuses a webhook past the credential's cap. The no-op update locks the credential's row until
 * commit on PostgreSQL, so a second subscription at once waits and then counts this one; SQLite runs
 * its writing transactions one at a time anyway.
 */
async function checkCap(trx: Transaction<Database>, credentialId: number, cap: number): Promise<void> {
  await trx
    .updateTable('credentials')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', credentialId)
    .execute();
  const { count } = await trx
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('credential_id', '=', credentialId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= cap)
    throw new ConflictError(`the credential has ${count} webhooks, its cap is ${cap}`);
}

/** Webhook subscriptions, with the outbox of their deliveries (WebhookOutbox). */
export class Webhooks extends WebhookOutbox implements WebhookRepository {
  private select() {
    return this.dialect.db
      .selectFrom('webhooks as w')
      .innerJoin('credentials as c', 'c.id', 'w.credential_id')
      .select(WEBHOOK_COLUMNS);
  }

  async create(webhook: NewWebhook, actor: Actor = OPERATOR): Promise<Webhook> {
    const id = await this.writer.write({ actor }, async (trx) => {
      if (webhook.capPerCredential !== undefined)
        await checkCap(trx, webhook.credentialId, webhook.capPerCredential);
      const at = now();
      const row = await trx
        .insertInto('webhooks')
        .values({
          credential_id: webhook.credentialId,
          dispensary_id: webhook.dispensaryId,
          url: webhook.url,
          events: webhook.events === null ? null : JSON.stringify(webhook.events),
          enabled: 1,
          secret_ciphertext: webhook.secretCiphertext,
          created_at: at,
          updated_at: at,
          failing_since: null,
          disabled_reason: null,
          form: webhook.form,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(row.id);
      return {
        result: id,
        change: webhookChange(id, webhook.dispensaryId, 'webhook.create', {
          url: webhook.url,
          events: webhook.events,
          form: webhook.form,
        }),
      };
    });
    return (await this.get(id))!;
  }

  async get(id: number): Promise<Webhook | undefined> {
    const row = await this.select().where('w.id', '=', id).executeTakeFirst();
    return row && toWebhook(row);
  }

  async secretOf(id: number): Promise<string | undefined> {
    const row = await this.dialect.db
      .selectFrom('webhooks')
      .select('secret_ciphertext')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.secret_ciphertext;
  }

  async list(dispensaryIds?: readonly number[]): Promise<Webhook[]> {
    if (dispensaryIds?.length === 0) return [];
    let query = this.select().orderBy('w.id');
    if (dispensaryIds !== undefined) query = query.where('w.dispensary_id', 'in', dispensaryIds);
    return (await query.execute()).map(toWebhook);
  }

  async update(id: number, patch: WebhookPatch, actor: Actor = OPERATOR): Promise<Webhook | undefined> {
    const found = await this.writer.write({ actor }, async (trx) => {
      const current = await trx
        .selectFrom('webhooks')
        .select(['dispensary_id'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!current) return { result: false };
      await trx
        .updateTable('webhooks')
        .set({
          updated_at: now(),
          ...(patch.url === undefined ? {} : { url: patch.url }),
          ...(patch.form === undefined ? {} : { form: patch.form }),
          ...(patch.events === undefined
            ? {}
            : { events: patch.events === null ? null : JSON.stringify(patch.events) }),
          // Turned on by hand: the failing period starts again.
          ...(patch.enabled === undefined
            ? {}
            : patch.enabled
              ? { enabled: 1, disabled_reason: null, failing_since: null }
              : { enabled: 0 }),
        })
        .where('id', '=', id)
        .execute();
      const detail: Record<string, unknown> = {};
      if (patch.url !== undefined) detail.url = patch.url;
      if (patch.events !== undefined) detail.events = patch.events;
      if (patch.enabled !== undefined) detail.enabled = patch.enabled;
      if (patch.form !== undefined) detail.form = patch.form;
      return {
        result: true,
        change: webhookChange(id, Number(current.dispensary_id), 'webhook.update', detail),
      };
    });
    return found ? this.get(id) : undefined;
  }

  async setSecret(id: number, secretCiphertext: string, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .updateTable('webhooks')
        .set({ secret_ciphertext: secretCiphertext, updated_at: now() })
        .where('id', '=', id)
        .returning('dispensary_id')
        .executeTakeFirst();
      if (!row) return { result: false };
      return {
        result: true,
        change: webhookChange(id, Number(row.dispensary_id), 'webhook.rotate_secret', {}),
      };
    });
  }

  async remove(id: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .selectFrom('webhooks')
        .select(['dispensary_id', 'url'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return { result: false };
      const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id);
      await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
      await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      await trx.deleteFrom('webhooks').where('id', '=', id).execute();
      return {
        result: true,
        change: webhookChange(id, Number(row.dispensary_id), 'webhook.remove', { url: row.url }),
      };
    });
  }

  async failingSince(before: string): Promise<Webhook[]> {
    const rows = await this.select()
      .where('w.enabled', '=', 1)
      .where('w.failing_since', 'is not', null)
      .where('w.failing_since', '<', before)
      .execute();
    return rows.map(toWebhook);
  }

  async disable(id: number, reason: string, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .updateTable('webhooks')
        .set({ enabled: 0, disabled_reason: reason, updated_at: now() })
        .where('id', '=', id)
        .where('enabled', '=', 1)
        .returning('dispensary_id')
        .executeTakeFirst();
      if (!row) return { result: false };
      return {
        result: true,
        change: webhookChange(id, Number(row.dispensary_id), 'webhook.disable', { reason }),
      };
    });
  }
}
