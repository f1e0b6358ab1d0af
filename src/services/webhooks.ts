import { encryptWebhookSecret, generateWebhookSecret } from '../auth/webhook-secrets.js';
import { webhookUrlProblem } from '../infra/webhook-http.js';
import {
  type Actor,
  ConflictError,
  type Store,
  WEBHOOK_EVENTS,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookPatch,
} from '../store/store.js';
import type { AfterWrite } from './dispensaries.js';
import { ServiceError } from './errors.js';
import { encodeCursor } from './menu-feed.js';
import type { WebhookKeySource } from './webhook-key.js';

/** A subscription as callers give it (validated here). */
export interface WebhookInput {
  credential?: unknown;
  dispensaryId?: unknown;
  url?: unknown;
  events?: unknown;
  form?: unknown;
}

export interface WebhookChanges {
  url?: unknown;
  events?: unknown;
  enabled?: unknown;
  form?: unknown;
}

/**
 * The form whose item shape a webhook's deliveries carry when its subscriber chose none: Form B's, as
 * every delivery carried before a subscription could choose (so that those subscribers see no change).
 */
export const DEFAULT_WEBHOOK_FORM = 'b';

/**
 * Who is asking: a sync API key or an account limited to some dispensaries sees and touches only
 * their webhooks; undefined for the operator (the CLI, a key with scope all, an operator account).
 */
export type WebhookScope = readonly number[] | undefined;

const DEFAULT_DELIVERIES = 50;
const MAX_DELIVERIES = 500;

/**
 * Webhook subscriptions, for the sync API and the CLI: an integrator's credential subscribed to one
 * dispensary's changes. The signing secret is returned when created and when rotated, and otherwise
 * only kept encrypted (WebhookKeySource). Never logged or audit-logged.
 */
export class WebhookService {
  constructor(
    private readonly store: Store,
    private readonly keys: WebhookKeySource,
    /** `forms`: the ids of the request forms a delivery's item may be shaped as (MENU_FORMS.ids). */
    private readonly options: { allowPrivate: boolean; forms: readonly string[] },
    private readonly afterWrite: AfterWrite = async () => {},
  ) {}

  async create(
    input: WebhookInput,
    actor?: Actor,
    scope?: WebhookScope,
    capPerCredential?: number,
  ): Promise<{ webhook: Webhook; secret: string }> {
    const dispensaryId = input.dispensaryId;
    if (!Number.isInteger(dispensaryId) || (dispensaryId as number) < 1) {
      throw new ServiceError(
        'invalid_request',
        'dispensary_id must be a dispensary id, a positive whole number.',
      );
    }
    const id = dispensaryId as number;
    if (scope !== undefined && !scope.includes(id)) {
      throw new ServiceError(
        'forbidden',
        `You may not subscribe to dispensary ${id}: your access covers ${scope.join(', ') || 'no dispensary yet'}.`,
      );
    }
    const url = this.checkedUrl(input.url);
    const events = checkedEvents(input.events);
    const form = input.form === undefined ? DEFAULT_WEBHOOK_FORM : this.checkedForm(input.form);
    if (typeof input.credential !== 'string' || input.credential === '') {
      throw new ServiceError('invalid_request', 'credential must name an API credential (its username).');
    }
    if (!(await this.store.dispensaries.get(id))) {
      throw new ServiceError(
        'not_found',
        `There is no dispensary ${id}. List them with: menu-api dispensary list`,
      );
    }
    const credential = await this.store.credentials.find(input.credential);
    if (!credential || credential.revokedAt !== null) {
      throw new ServiceError(
        'not_found',
        `There is no active credential named ${input.credential}. List them with: menu-api credential list`,
      );
    }
    if (credential.expiresAt !== null && Date.parse(credential.expiresAt) <= Date.now()) {
      throw new ServiceError('unprocessable', `The credential ${input.credential} has expired.`);
    }
    if (credential.dispensaryIds !== null && !credential.dispensaryIds.includes(id)) {
      throw new ServiceError(
        'unprocessable',
        `The credential ${input.credential} may not read dispensary ${id}, so it cannot subscribe to its changes.`,
      );
    }
    const secret = generateWebhookSecret();
    const secretCiphertext = encryptWebhookSecret(this.keys.key(true), secret);
    const webhook = await this.store.webhooks
      .create(
        {
          credentialId: credential.id,
          dispensaryId: id,
          url,
          events,
          secretCiphertext,
          form,
          capPerCredential,
        },
        actor,
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConflictError)) throw error;
        throw new ServiceError(
          'conflict',
          `You have as many webhooks as this server allows an integrator (${capPerCredential}): remove one first.`,
        );
      });
    await this.afterWrite();
    return { webhook, secret };
  }

  async list(scope?: WebhookScope): Promise<Webhook[]> {
    return this.store.webhooks.list(scope);
  }

  /** The webhook, if it exists and is within the caller's scope (otherwise: not found). */
  async get(id: number, scope?: WebhookScope): Promise<Webhook> {
    const webhook = await this.store.webhooks.get(id);
    if (!webhook || (scope !== undefined && !scope.includes(webhook.dispensaryId))) throw notFound(id);
    return webhook;
  }

  async update(id: number, changes: WebhookChanges, actor?: Actor, scope?: WebhookScope): Promise<Webhook> {
    await this.get(id, scope);
    const patch: WebhookPatch = {};
    if (changes.url !== undefined) patch.url = this.checkedUrl(changes.url);
    if (changes.events !== undefined) patch.events = checkedEvents(changes.events);
    if (changes.form !== undefined) patch.form = this.checkedForm(changes.form);
    if (changes.enabled !== undefined) {
      if (typeof changes.enabled !== 'boolean') {
        throw new ServiceError('invalid_request', 'enabled must be true or false.');
      }
      patch.enabled = changes.enabled;
    }
    const updated = await this.store.webhooks.update(id, patch, actor);
    if (!updated) throw notFound(id);
    await this.afterWrite();
    return updated;
  }

  setEnabled(id: number, enabled: boolean, actor?: Actor, scope?: WebhookScope): Promise<Webhook> {
    return this.update(id, { enabled }, actor, scope);
  }

  async remove(id: number, actor?: Actor, scope?: WebhookScope): Promise<void> {
    await this.get(id, scope);
    if (!(await this.store.webhooks.remove(id, actor))) throw notFound(id);
    await this.afterWrite();
  }

  /** A new signing secret, shown once; the old one stops signing at once. */
  async rotateSecret(
    id: number,
    actor?: Actor,
    scope?: WebhookScope,
  ): Promise<{ webhook: Webhook; secret: string }> {
    await this.get(id, scope);
    const secret = generateWebhookSecret();
    if (
      !(await this.store.webhooks.setSecret(id, encryptWebhookSecret(this.keys.key(true), secret), actor))
    ) {
      throw notFound(id);
    }
    await this.afterWrite();
    return { webhook: await this.get(id, scope), secret };
  }

  async deliveries(
    id: number,
    scope?: WebhookScope,
    limit: unknown = DEFAULT_DELIVERIES,
  ): Promise<WebhookDelivery[]> {
    await this.get(id, scope);
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_DELIVERIES) {
      throw new ServiceError('invalid_request', `limit must be a whole number from 1 to ${MAX_DELIVERIES}.`);
    }
    return this.store.webhooks.deliveries(id, limit as number);
  }

  /**
   * Tries a delivery again now (a failed one, or a pending one without waiting for its retry), with
   * its webhook-id and attempts kept. A delivered one is refused (conflict): its receiver acknowledged
   * it, and deduplicates on its webhook-id; sent again now, an old change would arrive after newer
   * ones, and a failed re-send would hold them all behind it.
   */
  async retry(id: number, deliveryId: string, actor?: Actor, scope?: WebhookScope): Promise<WebhookDelivery> {
    await this.get(id, scope);
    const outcome = await this.store.webhooks.retry(id, deliveryId, actor);
    if (!outcome) {
      throw new ServiceError(
        'not_found',
        `Webhook ${id} has no delivery ${deliveryId}. List them with: menu-api webhook deliveries ${id}`,
      );
    }
    if (!outcome.retried) throw new ServiceError('conflict', deliveredAlready(outcome.delivery));
    await this.afterWrite();
    return outcome.delivery;
  }

  private checkedUrl(url: unknown): string {
    if (typeof url !== 'string') throw new ServiceError('invalid_request', 'url must be an https:// URL.');
    const problem = webhookUrlProblem(url, this.options.allowPrivate);
    if (problem) throw new ServiceError('invalid_request', problem);
    return url;
  }

  private checkedForm(form: unknown): string {
    if (typeof form !== 'string' || !this.options.forms.includes(form)) {
      throw new ServiceError(
        'invalid_request',
        `form must be the request form whose item shape deliveries carry: ${this.options.forms.join(', ')} (default ${DEFAULT_WEBHOOK_FORM}).`,
      );
    }
    return form;
  }
}

function checkedEvents(events: unknown): WebhookEvent[] | null {
  if (events === undefined || events === null) return null;
  if (
    !Array.isArray(events) ||
    events.length === 0 ||
    !events.every((event) => (WEBHOOK_EVENTS as readonly unknown[]).includes(event))
  ) {
    throw new ServiceError(
      'invalid_request',
      `events must be a non-empty list of ${WEBHOOK_EVENTS.join(', ')} (or left out for every type).`,
    );
  }
  return [...new Set(events as WebhookEvent[])];
}

/** Why a delivered delivery is not sent again, and how its receiver gets the change anyway. */
function deliveredAlready(delivery: WebhookDelivery): string {
  return `Delivery ${delivery.id} was delivered at ${delivery.deliveredAt} (answered ${delivery.lastStatus}), so it is not sent again: its record stays as it happened, and a change sent again now would arrive after newer ones. If the receiver lost it, it reads the change again from GET /changes (cursor ${encodeCursor(delivery.seq)}) or reads the menu again.`;
}

function notFound(id: number): ServiceError {
  return new ServiceError('not_found', `There is no webhook ${id}. List them with: menu-api webhook list`);
}
