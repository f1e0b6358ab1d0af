import type { Actor } from './actor.js';
import type { MenuChange } from './changes.js';

/** The change types a webhook may subscribe to (those of the change feed). */
export const WEBHOOK_EVENTS = ['item.upserted', 'item.removed', 'store.updated'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A subscription of an integrator's credential to one dispensary's changes. */
export interface Webhook {
  id: number;
  /** The credential's username. */
  credential: string;
  dispensaryId: number;
  url: string;
  /** The change types sent; null for every type. */
  events: WebhookEvent[] | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Since when every delivery has failed; null while the endpoint answers. */
  failingSince: string | null;
  /** Why the endpoint was disabled (by the dispatcher), or null. */
  disabledReason: string | null;
  /** The request form whose item shape deliveries carry (its id: a, b or v1). */
  form: string;
}

export interface NewWebhook {
  credentialId: number;
  dispensaryId: number;
  url: string;
  events: WebhookEvent[] | null;
  secretCiphertext: string;
  form: string;
  /**
   * The most webhooks the credential may have, this one included: counted in the transaction that
   * adds it, so two subscriptions at once cannot both take the last place (ConflictError past it).
   */
  capPerCredential?: number;
}

export interface WebhookPatch {
  url?: string;
  events?: WebhookEvent[] | null;
  enabled?: boolean;
  form?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  at: string;
  /** The answer's status, or null when there was none (refused, timed out). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookDelivery {
  /** Sent as the webhook-id header. */
  id: string;
  webhookId: number;
  /** The change's cursor. */
  seq: number;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  /** When a pending delivery is next tried. */
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** The first few KiB of the last answer. */
  lastResponse: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attemptLog: WebhookAttempt[];
}

/**
 * What retrying a delivery did: made it pending again, due now with its attempts kept (`retried`),
 * or nothing, since it was delivered (a delivery's history is never rewritten).
 */
export interface DeliveryRetry {
  retried: boolean;
  delivery: WebhookDelivery;
}

/** A delivery claimed by this process until `leaseUntil`. */
export interface ClaimedDelivery {
  id: string;
  webhookId: number;
  dispensaryId: number;
  seq: number;
  type: string;
  attempts: number;
  claim: string;
  url: string;
  secretCiphertext: string;
  /** The request form whose item shape the delivery carries. */
  form: string;
  /** The change it carries; undefined when it is no longer kept (past the feed's retention). */
  change: MenuChange | undefined;
}

/** What one attempt found out, and what follows. */
export interface AttemptResult extends WebhookAttempt {
  response: string | null;
  /** delivered; retry at this time; or failed for good. */
  outcome: { status: 'delivered' } | { status: 'retry'; at: string } | { status: 'failed' };
}

/** Webhook subscriptions: an integrator's credential subscribed to one dispensary's changes. */
export interface WebhookSubscriptionRepository {
  create(webhook: NewWebhook, actor?: Actor): Promise<Webhook>;
  get(id: number): Promise<Webhook | undefined>;
  /** The encrypted signing secret. */
  secretOf(id: number): Promise<string | undefined>;
  /** Every webhook, or those of one dispensary. */
  /** Every webhook, or those of these dispensaries. */
  list(dispensaryIds?: readonly number[]): Promise<Webhook[]>;
  update(id: number, patch: WebhookPatch, actor?: Actor): Promise<Webhook | undefined>;
  setSecret(id: number, secretCiphertext: string, actor?: Actor): Promise<boolean>;
  remove(id: number, actor?: Actor): Promise<boolean>;
  /** Webhooks failing every delivery since before `before` and still enabled. */
  failingSince(before: string): Promise<Webhook[]>;
  /** Turns a failing webhook off, audit-logged, if it is still enabled; true when it did. */
  disable(id: number, reason: string, actor?: Actor): Promise<boolean>;
}

/** The outbox of deliveries the dispatcher works through. */
export interface WebhookOutboxRepository {
  /** The latest deliveries of a webhook, newest first, each with its attempts. */
  deliveries(webhookId: number, limit: number): Promise<WebhookDelivery[]>;
  delivery(webhookId: number, deliveryId: string): Promise<WebhookDelivery | undefined>;
  /**
   * Makes a pending or failed delivery pending again, due now, with its attempts kept; leaves a
   * delivered one as it is. Undefined when the webhook has no such delivery.
   */
  retry(webhookId: number, deliveryId: string, actor?: Actor): Promise<DeliveryRetry | undefined>;
  /**
   * Claims due deliveries, each the oldest pending one of its (enabled) endpoint, until `leaseMs` from
   * now: on PostgreSQL FOR UPDATE SKIP LOCKED in one short transaction, so that processes never claim
   * the same one; a lease that ran out (its process died) is claimed again.
   */
  claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a claimed delivery; false when the claim was lost (the lease ran out). */
  record(delivery: ClaimedDelivery, result: AttemptResult): Promise<boolean>;
  /** The earliest future time a pending delivery is due, if any. */
  nextDue(): Promise<string | undefined>;
}

/** Subscriptions, and the outbox of deliveries the dispatcher works through. */
export interface WebhookRepository extends WebhookSubscriptionRepository, WebhookOutboxRepository {}
