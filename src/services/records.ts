import { publishingRecord } from '../domain/publishing.js';
import type { Special } from '../domain/special-schema.js';
import { specialRecordOf } from '../domain/validate-special.js';
import type {
  AccessRequest,
  Account,
  AdminKey,
  AuditEntry,
  DispensarySummary,
  Integrator,
  Webhook,
  WebhookDelivery,
} from '../store/store.js';
import type { IssuedLink } from './accounts.js';
import type { CredentialSummary } from './credentials.js';
import type { ConfirmationLink } from './integrators.js';
import { encodeCursor } from './menu-feed.js';
import type { ImportReport } from './menus.js';
import type { SpecialsSchedule } from './specials.js';

/*
 * The records machines read, with the API's snake_case names: the sync API's answers and the CLI's
 * --json output are made by these same functions, so that one name never has two spellings.
 */

/** One entry of GET /admin/v1/dispensaries and `dispensary list --json`. */
export function dispensarySummaryRecord(dispensary: DispensarySummary) {
  return {
    id: dispensary.id,
    name: dispensary.name,
    items: dispensary.itemCount,
    active_items: dispensary.activeItemCount,
    created_at: dispensary.createdAt,
    updated_at: dispensary.updatedAt,
    ...publishingRecord(dispensary),
  };
}

/** One entry of GET /admin/v1/credentials and `credential list --json`: never a password or its hash. */
export function credentialRecord(credential: CredentialSummary) {
  return {
    username: credential.username,
    created_at: credential.createdAt,
    revoked_at: credential.revokedAt,
    expires_at: credential.expiresAt,
    last_used_at: credential.lastUsedAt,
    dispensaries: credential.dispensaryIds,
  };
}

/** The answer of PUT /admin/v1/dispensaries/:id/menu; `menu import --json` adds whether it was a dry run. */
export function importReportRecord(report: ImportReport) {
  return {
    dispensary_id: report.dispensaryId,
    items: report.items,
    active_items: report.activeItems,
    price_entries: report.priceEntries,
  };
}

/** One admin key of `admin-key list --json`: never the key itself. */
export function adminKeyRecord(key: Omit<AdminKey, 'id'>) {
  return {
    name: key.name,
    scope: key.scope,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    revoked: key.revokedAt !== null,
    revoked_at: key.revokedAt,
  };
}

/** One entry of `audit --json`. */
export function auditEntryRecord(entry: AuditEntry) {
  return {
    id: entry.id,
    at: entry.at,
    actor: entry.actor,
    dispensary_id: entry.dispensaryId,
    action: entry.action,
    detail: entry.detail,
  };
}

/** One webhook of GET /admin/v1/webhooks and `webhook list --json`: never its secret. */
export function webhookRecord(webhook: Webhook) {
  return {
    id: webhook.id,
    credential: webhook.credential,
    dispensary_id: webhook.dispensaryId,
    url: webhook.url,
    events: webhook.events,
    form: webhook.form,
    enabled: webhook.enabled,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
    failing_since: webhook.failingSince,
    disabled_reason: webhook.disabledReason,
  };
}

/** A webhook with its signing secret: the answer of creating it and of rotating its secret, only. */
export function webhookWithSecretRecord({ webhook, secret }: { webhook: Webhook; secret: string }) {
  return { ...webhookRecord(webhook), secret };
}

/** One delivery of GET /admin/v1/webhooks/:id/deliveries and `webhook deliveries --json`. */
export function deliveryRecord(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    cursor: encodeCursor(delivery.seq),
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.nextAttemptAt,
    last_status_code: delivery.lastStatus,
    last_latency_ms: delivery.lastLatencyMs,
    last_error: delivery.lastError,
    last_response: delivery.lastResponse,
    created_at: delivery.createdAt,
    delivered_at: delivery.deliveredAt,
    attempt_log: delivery.attemptLog.map((attempt) => ({
      at: attempt.at,
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}

/** One special of GET /admin/v1/dispensaries/:id/specials and `special list --json`. */
/** GET /admin/v1/dispensaries/{id}/specials/schedule and `special schedule --json`. */
export function specialsScheduleRecord(schedule: SpecialsSchedule) {
  const time = (ms: number) => new Date(ms).toISOString();
  return {
    from: time(schedule.from),
    to: time(schedule.to),
    timezone: schedule.timezone,
    specials: schedule.specials.map(({ special, periods }) => ({
      id: special.id,
      name: special.name,
      menu_type: special.menuType,
      periods: periods.map((period) => ({
        starts_at: time(period.start),
        ends_at: period.end === null ? null : time(period.end),
      })),
    })),
  };
}

export function specialRecord(special: Special) {
  return {
    id: special.id,
    dispensary_id: special.dispensaryId,
    ...specialRecordOf(special),
    created_at: special.createdAt,
    updated_at: special.updatedAt,
  };
}

/** A new one-time link as the sync API and `--json` give it (shown once; never stored but as a digest). */
export function issuedLinkRecord(issued: IssuedLink) {
  return {
    account: accountRecord(issued.account),
    link: issued.url,
    expires_at: issued.expiresAt,
    emailed: issued.emailed,
    ...(issued.emailError === undefined ? {} : { email_error: issued.emailError }),
  };
}

/** An account as the sync API and `--json` give it (never its password). */
export function accountRecord(account: Account) {
  return {
    id: account.id,
    email: account.email,
    role: account.role,
    dispensary_ids: account.dispensaryIds,
    active: account.active,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

/** An integrator's registration as the sync API and `integrator list --json` give it (never its password). */
export function integratorRecord(integrator: Integrator) {
  return {
    id: integrator.accountId,
    email: integrator.email,
    name: integrator.name,
    company: integrator.company,
    building: integrator.building,
    status: integrator.status,
    credential: integrator.credentialUsername,
    created_at: integrator.createdAt,
    updated_at: integrator.updatedAt,
  };
}

/** An integrator's confirmation link, as `menu-api integrator confirm-link --json` prints it. */
export function confirmationLinkRecord(link: ConfirmationLink) {
  return {
    email: link.email,
    link: link.url,
    expires_at: link.expiresAt,
    emailed: link.emailed,
    ...(link.emailError === undefined ? {} : { email_error: link.emailError }),
  };
}

/** A request to read a dispensary, as the portal and the managers' list give it (never a token). */
export function accessRequestRecord(request: AccessRequest) {
  return {
    id: request.id,
    integrator_id: request.accountId,
    email: request.email,
    company: request.company,
    building: request.building,
    dispensary_id: request.dispensaryId,
    dispensary_name: request.dispensaryName,
    status: request.status,
    token_issued: request.hasToken,
    decided_by: request.decidedBy,
    created_at: request.createdAt,
    updated_at: request.updatedAt,
  };
}
