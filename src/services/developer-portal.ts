import type { Principal } from '../domain/permissions.js';
import type { UsageCount, Webhook, WebhookDelivery } from '../store/store.js';
import { ServiceError } from './errors.js';
import type { IntegratorService } from './integrators.js';
import type { UsageCounter } from './usage.js';
import type { WebhookChanges, WebhookInput, WebhookService } from './webhooks.js';

/** What an integrator gives to subscribe: its own credential is the one subscribed. */
export type OwnWebhookInput = Omit<WebhookInput, 'credential'>;

/**
 * The rest of an integrator's portal, over the operators' own services: its credential's usage per
 * hour (the usage counter's), and its own webhooks (the webhook service's, with its rules: https only,
 * no private or loopback target unless the server allows them for development). An integrator sees and
 * changes only the webhooks of its own credential, subscribes only to dispensaries that approved its
 * access, and has at most `webhookCap` (--integrator-webhook-cap).
 */
export class DeveloperPortal {
  constructor(
    private readonly integrators: IntegratorService,
    private readonly webhooks: WebhookService,
    private readonly counter: UsageCounter,
    private readonly options: { webhookCap: number },
  ) {}

  /** Requests per hour of the integrator's own credential since the start of the hour `hours` ago. */
  async usage(by: Principal, hours: number): Promise<UsageCount[]> {
    const { username } = await this.integrators.ownCredential(by);
    return this.counter.list(hours, { username });
  }

  /** The webhooks of the integrator's credential, the dispensaries that withdrew its access included. */
  async listWebhooks(by: Principal): Promise<Webhook[]> {
    const { username } = await this.integrators.ownCredential(by);
    return (await this.webhooks.list()).filter((webhook) => webhook.credential === username);
  }

  /** Subscribes the integrator's credential to a dispensary it may read; the secret is shown once. */
  async createWebhook(by: Principal, input: OwnWebhookInput): Promise<{ webhook: Webhook; secret: string }> {
    const own = await this.integrators.ownCredential(by);
    return this.webhooks.create(
      { ...input, credential: own.username },
      by.actor,
      own.dispensaryIds,
      this.options.webhookCap,
    );
  }

  async updateWebhook(by: Principal, id: number, changes: WebhookChanges): Promise<Webhook> {
    await this.own(by, id);
    return this.webhooks.update(id, changes, by.actor);
  }

  async removeWebhook(by: Principal, id: number): Promise<void> {
    await this.own(by, id);
    await this.webhooks.remove(id, by.actor);
  }

  async rotateWebhookSecret(by: Principal, id: number): Promise<{ webhook: Webhook; secret: string }> {
    await this.own(by, id);
    return this.webhooks.rotateSecret(id, by.actor);
  }

  async deliveries(by: Principal, id: number, limit?: number): Promise<WebhookDelivery[]> {
    await this.own(by, id);
    return this.webhooks.deliveries(id, undefined, limit);
  }

  /** The webhook when it is the integrator's own; any other is not found (never "not yours"). */
  private async own(by: Principal, id: number): Promise<Webhook> {
    const { username } = await this.integrators.ownCredential(by);
    // The one webhook, not every webhook of the server filtered here.
    const found = await this.webhooks.get(id).catch((error: unknown) => {
      if (error instanceof ServiceError && error.code === 'not_found') return undefined;
      throw error;
    });
    if (found?.credential !== username) {
      throw new ServiceError(
        'not_found',
        `You have no webhook ${id}. List yours with GET /admin/v1/developer/webhooks.`,
      );
    }
    return found;
  }
}
