import { formatDuration, parseBoolean, parseDuration, parseSchedule, wholeNumber } from './parse.js';
import { serverSetting } from './setting.js';

/** Retries of a webhook delivery: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (each with jitter). */
const DEFAULT_WEBHOOK_RETRIES = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/**
 * The settings of webhooks, a group of the settings table (./settings.ts, where they are spread in
 * their place): the key of their secrets, which targets they may have, how deliveries are retried,
 * and how many an integrator may make itself in its portal.
 */
export const WEBHOOK_SETTINGS = {
  webhookKey: serverSetting<string | undefined>({
    flag: '--webhook-key <base64>',
    env: 'WEBHOOK_KEY',
    doc: 'key encrypting webhook signing secrets: 32 random bytes, base64 (prefer the variable); see Webhooks',
    scope: 'global',
    default: undefined,
  }),
  webhookAllowPrivate: serverSetting({
    flag: '--webhook-allow-private',
    env: 'WEBHOOK_ALLOW_PRIVATE',
    doc: 'development only: allow http:// webhook URLs and private, loopback and link-local targets',
    scope: 'global',
    parse: parseBoolean,
    default: false,
  }),
  webhookTimeoutMs: serverSetting({
    flag: '--webhook-timeout-ms <ms>',
    env: 'WEBHOOK_TIMEOUT_MS',
    doc: 'a webhook delivery not answered 2xx within this time is retried',
    parse: wholeNumber('--webhook-timeout-ms'),
    default: 10_000,
  }),
  webhookRetrySchedule: serverSetting<number[]>({
    flag: '--webhook-retry-schedule <delays>',
    env: 'WEBHOOK_RETRY_SCHEDULE',
    doc: 'delays before each retry of a webhook delivery (±20% jitter); after the last: failed',
    parse: parseSchedule,
    default: DEFAULT_WEBHOOK_RETRIES,
    shown: DEFAULT_WEBHOOK_RETRIES.map(formatDuration).join(','),
  }),
  webhookDisableAfter: serverSetting({
    flag: '--webhook-disable-after <duration>',
    env: 'WEBHOOK_DISABLE_AFTER',
    doc: 'a webhook whose deliveries all failed for this long is disabled',
    parse: parseDuration,
    default: 5 * 86_400_000,
    shown: '5d',
  }),
  integratorWebhookCap: serverSetting({
    flag: '--integrator-webhook-cap <n>',
    env: 'INTEGRATOR_WEBHOOK_CAP',
    doc: 'most webhooks of one integrator’s credential: past it, its portal makes no more',
    parse: wholeNumber('--integrator-webhook-cap'),
    default: 10,
  }),
};
