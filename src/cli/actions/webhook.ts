import { deliveryRecord, webhookRecord, webhookWithSecretRecord } from '../../services/records.js';
import { webhookKeySource } from '../../services/webhook-key.js';
import { WebhookService } from '../../services/webhooks.js';
import type { Store } from '../../store/store.js';
import { parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit, table } from '../output.js';

/** What the webhook commands read of the global settings: the secrets' key, and the development switch. */
export interface WebhookCliSettings {
  webhookKey?: string;
  allowPrivate: boolean;
}

const service = (options: CommonOptions, settings: WebhookCliSettings) => (store: Store) =>
  new WebhookService(
    store,
    webhookKeySource(settings.webhookKey, options.db, (message) => process.stderr.write(`${message}\n`)),
    { allowPrivate: settings.allowPrivate },
  );

const webhookId = (id: string) => parseId(id, 'A webhook id');

export async function add(
  options: CommonOptions & { credential: string; dispensary: string; url: string; events?: string },
  settings: WebhookCliSettings,
): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const created = await webhooks.create({
      credential: options.credential,
      dispensaryId: parseId(options.dispensary, 'A dispensary id'),
      url: options.url,
      events: options.events?.split(',').map((event) => event.trim()),
    });
    emit(
      options,
      webhookWithSecretRecord(created),
      [
        `Added webhook ${created.webhook.id}: changes of dispensary ${created.webhook.dispensaryId} go to ${created.webhook.url}.`,
        `Signing secret (shown once, send it securely to ${created.webhook.credential}): ${created.secret}`,
      ].join('\n'),
    );
  });
}

export async function list(options: CommonOptions, settings: WebhookCliSettings): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const all = await webhooks.list();
    emit(
      options,
      all.map(webhookRecord),
      all.length === 0
        ? 'No webhooks yet. Add one with: menu-api webhook add --credential NAME --dispensary ID --url URL'
        : table(
            ['ID', 'DISPENSARY', 'CREDENTIAL', 'URL', 'EVENTS', 'ENABLED', 'FAILING SINCE'],
            all.map((webhook) => [
              webhook.id,
              webhook.dispensaryId,
              webhook.credential,
              webhook.url,
              webhook.events?.join(',') ?? 'all',
              webhook.enabled ? 'yes' : `no${webhook.disabledReason ? ` (${webhook.disabledReason})` : ''}`,
              webhook.failingSince ?? '-',
            ]),
          ),
    );
  });
}

export async function show(id: string, options: CommonOptions, settings: WebhookCliSettings): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const record = webhookRecord(await webhooks.get(webhookId(id)));
    emit(
      options,
      record,
      Object.entries(record)
        .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(',') : String(value)}`)
        .join('\n'),
    );
  });
}

export async function deliveries(
  id: string,
  options: CommonOptions & { limit?: string },
  settings: WebhookCliSettings,
): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const found = await webhooks.deliveries(webhookId(id), undefined, Number(options.limit ?? 50));
    emit(
      options,
      found.map(deliveryRecord),
      found.length === 0
        ? `No deliveries to webhook ${id} yet.`
        : table(
            [
              'DELIVERY',
              'CURSOR',
              'TYPE',
              'STATUS',
              'ATTEMPTS',
              'LAST STATUS',
              'LATENCY MS',
              'NEXT ATTEMPT',
              'LAST ERROR',
            ],
            found.map((delivery) => [
              delivery.id,
              delivery.seq,
              delivery.type,
              delivery.status,
              delivery.attempts,
              delivery.lastStatus ?? '-',
              delivery.lastLatencyMs ?? '-',
              delivery.nextAttemptAt ?? '-',
              delivery.lastError ?? '-',
            ]),
          ),
    );
  });
}

export async function retry(
  id: string,
  deliveryId: string,
  options: CommonOptions,
  settings: WebhookCliSettings,
): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const delivery = await webhooks.retry(webhookId(id), deliveryId);
    emit(options, deliveryRecord(delivery), `Delivery ${deliveryId} will be sent again now.`);
  });
}

export async function setEnabled(
  id: string,
  enabled: boolean,
  options: CommonOptions,
  settings: WebhookCliSettings,
): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const webhook = await webhooks.setEnabled(webhookId(id), enabled);
    emit(options, webhookRecord(webhook), `Webhook ${id} is ${enabled ? 'enabled' : 'disabled'}.`);
  });
}

export async function rotateSecret(
  id: string,
  options: CommonOptions,
  settings: WebhookCliSettings,
): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    const rotated = await webhooks.rotateSecret(webhookId(id));
    emit(
      options,
      webhookWithSecretRecord(rotated),
      `New signing secret of webhook ${id} (shown once; the old one no longer signs): ${rotated.secret}`,
    );
  });
}

export async function remove(
  id: string,
  options: CommonOptions,
  settings: WebhookCliSettings,
): Promise<void> {
  await withService(options, service(options, settings), async (webhooks) => {
    await webhooks.remove(webhookId(id));
    emit(options, { id: webhookId(id), removed: true }, `Removed webhook ${id}.`);
  });
}
