import { MENU_FORMS } from '../../forms/index.js';
import { deliveryRecord, webhookRecord, webhookWithSecretRecord } from '../../services/records.js';
import { webhookKeySource } from '../../services/webhook-key.js';
import { WebhookService } from '../../services/webhooks.js';
import type { Store } from '../../store/store.js';
import { parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit, emitList } from '../output.js';

/** What the webhook commands read of the global settings: the secrets' key, and the development switch. */
export interface WebhookCliSettings {
  webhookKey?: string;
  allowPrivate: boolean;
}

const webhookId = (id: string) => parseId(id, 'A webhook id');

/**
 * The webhook commands' work, for one run's options and settings: each runs with the webhook service
 * over the selected database (a missing SQLite file is created, whatever the command) and prints its
 * result.
 */
export function webhookActions(options: CommonOptions, settings: WebhookCliSettings) {
  const service = (store: Store) =>
    new WebhookService(
      store,
      webhookKeySource(settings.webhookKey, options.db, (message) => process.stderr.write(`${message}\n`)),
      { allowPrivate: settings.allowPrivate, forms: MENU_FORMS.ids },
    );
  const run = (work: (webhooks: WebhookService) => Promise<void>) => withService(options, service, work);
  return {
    add: (subscription: {
      credential: string;
      dispensary: string;
      url: string;
      events?: string;
      form?: string;
    }) =>
      run(async (webhooks) => {
        const created = await webhooks.create({
          credential: subscription.credential,
          dispensaryId: parseId(subscription.dispensary, 'A dispensary id'),
          url: subscription.url,
          events: subscription.events?.split(',').map((event) => event.trim()),
          form: subscription.form,
        });
        emit(
          options,
          webhookWithSecretRecord(created),
          [
            `Added webhook ${created.webhook.id}: changes of dispensary ${created.webhook.dispensaryId} go to ${created.webhook.url}.`,
            `Signing secret (shown once, send it securely to ${created.webhook.credential}): ${created.secret}`,
          ].join('\n'),
        );
      }),

    list: () =>
      run(async (webhooks) =>
        emitList(options, await webhooks.list(), {
          record: webhookRecord,
          empty:
            'No webhooks yet. Add one with: menu-api webhook add --credential NAME --dispensary ID --url URL',
          headers: ['ID', 'DISPENSARY', 'CREDENTIAL', 'URL', 'EVENTS', 'FORM', 'ENABLED', 'FAILING SINCE'],
          row: (webhook) => [
            webhook.id,
            webhook.dispensaryId,
            webhook.credential,
            webhook.url,
            webhook.events?.join(',') ?? 'all',
            webhook.form,
            webhook.enabled ? 'yes' : `no${webhook.disabledReason ? ` (${webhook.disabledReason})` : ''}`,
            webhook.failingSince ?? '-',
          ],
        }),
      ),

    show: (id: string) =>
      run(async (webhooks) => {
        const record = webhookRecord(await webhooks.get(webhookId(id)));
        emit(
          options,
          record,
          Object.entries(record)
            .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(',') : String(value)}`)
            .join('\n'),
        );
      }),

    deliveries: (id: string, limit: string | undefined) =>
      run(async (webhooks) =>
        emitList(options, await webhooks.deliveries(webhookId(id), undefined, Number(limit ?? 50)), {
          record: deliveryRecord,
          empty: `No deliveries to webhook ${id} yet.`,
          headers: [
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
          row: (delivery) => [
            delivery.id,
            delivery.seq,
            delivery.type,
            delivery.status,
            delivery.attempts,
            delivery.lastStatus ?? '-',
            delivery.lastLatencyMs ?? '-',
            delivery.nextAttemptAt ?? '-',
            delivery.lastError ?? '-',
          ],
        }),
      ),

    retry: (id: string, deliveryId: string) =>
      run(async (webhooks) => {
        const delivery = await webhooks.retry(webhookId(id), deliveryId);
        emit(options, deliveryRecord(delivery), `Delivery ${deliveryId} will be sent again now.`);
      }),

    setEnabled: (id: string, enabled: boolean) =>
      run(async (webhooks) => {
        const webhook = await webhooks.setEnabled(webhookId(id), enabled);
        emit(options, webhookRecord(webhook), `Webhook ${id} is ${enabled ? 'enabled' : 'disabled'}.`);
      }),

    setForm: (id: string, form: string) =>
      run(async (webhooks) => {
        const webhook = await webhooks.update(webhookId(id), { form });
        emit(
          options,
          webhookRecord(webhook),
          `Webhook ${id}'s deliveries now carry items in Form ${form.toUpperCase()}'s shape.`,
        );
      }),

    rotateSecret: (id: string) =>
      run(async (webhooks) => {
        const rotated = await webhooks.rotateSecret(webhookId(id));
        emit(
          options,
          webhookWithSecretRecord(rotated),
          `New signing secret of webhook ${id} (shown once; the old one no longer signs): ${rotated.secret}`,
        );
      }),

    remove: (id: string) =>
      run(async (webhooks) => {
        await webhooks.remove(webhookId(id));
        emit(options, { id: webhookId(id), removed: true }, `Removed webhook ${id}.`);
      }),
  };
}
