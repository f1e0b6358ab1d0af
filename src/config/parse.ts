import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';

/**
 * The parsers of setting values, from the text of an option or an environment variable. They throw
 * commander's InvalidArgumentError, which commander reports as a usage error naming the option (or
 * the environment variable) instead of a stack trace.
 */

export interface RateBucket {
  ratePerSecond: number;
  burst: number;
}

export type TrustProxy = boolean | number | string[];

/** A whole number from 0, or the message `NAME must be a whole number, not "VALUE"`. */
export function wholeNumber(name: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) {
      throw new InvalidArgumentError(`${name} must be a whole number, not "${value}"`);
    }
    return parsed;
  };
}

/** A whole number from 0 for the limit options, with their shorter message. */
export function limitNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new InvalidArgumentError(`not a whole number: "${value}"`);
  return parsed;
}

/** The connection pool size: 1 to 1000. */
export function poolSize(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 1000) {
    throw new InvalidArgumentError(`--db-pool-size must be a whole number from 1 to 1000, not "${value}"`);
  }
  return parsed;
}

/** `true`/`false` (also 1/0, yes/no): how a switch such as --demo is written in the environment. */
export function parseBoolean(value: string): boolean {
  const text = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off', ''].includes(text)) return false;
  throw new InvalidArgumentError(`expected true or false, not "${value}"`);
}

/** `RATE,BURST` (requests per second, bucket size) or `off`. */
export function parseBucket(value: string): RateBucket | null {
  if (value.trim().toLowerCase() === 'off') return null;
  const parts = value.split(',').map((part) => Number(part.trim()));
  const [rate, burst] = parts;
  if (
    parts.length !== 2 ||
    !(rate! > 0) ||
    !Number.isFinite(rate) ||
    !Number.isInteger(burst) ||
    burst! < 1
  ) {
    throw new InvalidArgumentError(
      `expected RATE,BURST (requests per second, then the burst, e.g. 20,100) or off, not "${value}"`,
    );
  }
  return { ratePerSecond: rate!, burst: burst! };
}

export function formatBucket(bucket: RateBucket | null): string {
  return bucket ? `${bucket.ratePerSecond},${bucket.burst}` : 'off';
}

/** `PAIR,ADDRESS,USERNAME`: failed logins per username and address, per address, per username. */
export function parseLoginFailures(value: string): [number, number, number] {
  const parts = value.split(',').map((part) => Number(part.trim()));
  if (parts.length !== 3 || parts.some((part) => !Number.isInteger(part) || part < 0)) {
    throw new InvalidArgumentError(
      `expected three whole numbers PAIR,ADDRESS,USERNAME (e.g. 10,50,200; 0 turns one off), not "${value}"`,
    );
  }
  return parts as [number, number, number];
}

/** `false` (the default), `true`, a number of proxy hops, or a comma list of addresses and CIDRs. */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(entry);
    const family = isIP(address);
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!named && (family === 0 || !bitsOk)) {
      throw new InvalidArgumentError(
        `expected false, true, a number of proxy hops, or addresses/CIDRs such as 10.0.0.0/8,loopback; "${entry}" is none`,
      );
    }
  }
  return entries;
}

/** A comma list of origins such as https://shop.example; each must be exactly scheme://host[:port]. */
/**
 * Email domains, as a comma list; given again (a repeated option), the lists add up. Lower case, no
 * `@`, at least one dot: `example.com`.
 */
export function parseDomains(value: string, previous: readonly string[] = []): string[] {
  const domains = value
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean);
  for (const domain of domains) {
    if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(domain)) {
      throw new InvalidArgumentError(
        `"${domain}" is not an email domain: write it as example.com, without @`,
      );
    }
  }
  return [...new Set([...previous, ...domains])];
}

export function parseOrigins(value: string): string[] {
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new InvalidArgumentError(
        `"${origin}" is not an origin: write scheme://host[:port], e.g. https://shop.example, without a path`,
      );
    }
  }
  return origins;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `500ms`, `5s`, `30m`, `2h` or `5d`, in milliseconds. */
export function parseDuration(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (!match) {
    throw new InvalidArgumentError(`expected a duration such as 500ms, 5s, 30m, 2h or 5d, not "${value}"`);
  }
  return Math.round(Number(match[1]) * UNITS[match[2]!]!);
}

/** How a duration in milliseconds is written back: the largest unit that divides it. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNITS[unit]! && ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  }
  return `${ms}ms`;
}

/** A retry schedule: comma-separated durations, one per retry, at least one. */
export function parseSchedule(value: string): number[] {
  const parts = value.split(',').filter((part) => part.trim() !== '');
  if (parts.length === 0 || parts.length > 50) {
    throw new InvalidArgumentError(
      `expected 1 to 50 comma-separated durations such as 5s,5m,30m, not "${value}"`,
    );
  }
  return parts.map(parseDuration);
}
