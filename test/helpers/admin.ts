import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ServerConfig } from '../../src/config.js';
import type { Runtime } from '../../src/server/runtime.js';
import { type TestRuntime, testRuntime } from './runtime.js';

/**
 * No rate limits and no failed-login lockout: these tests send many requests, and many wrong secrets,
 * from one address on purpose. (The limits have their own tests.)
 */
export const UNLIMITED: Partial<ServerConfig> = {
  rateLimitCredential: null,
  rateLimitAddress: null,
  rateLimitAdminKey: null,
  loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 0, perUsername: 0 },
};

/** testRuntime() without rate limits or lockout (see UNLIMITED). */
export function syncTestRuntime(options: Parameters<typeof testRuntime>[0] = {}): Promise<TestRuntime> {
  return testRuntime({ ...options, config: { ...UNLIMITED, ...options.config } });
}

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One sync API request: `path` is below /admin/v1; an object body is sent as JSON. */
export type AdminCall = (
  method: AdminMethod,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

/** Requests to the sync API of `app` with `Authorization: Bearer <key>` (no header when key is null). */
export function adminCaller(app: FastifyInstance, key: string | null): AdminCall {
  return (method, path, body, headers = {}) =>
    app.inject({
      method,
      url: `/admin/v1${path}`,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
}

/** Creates an admin key through the service (what `menu-api admin-key create` runs) and a caller for it. */
export async function adminKey(
  runtime: Pick<Runtime, 'app' | 'services'>,
  scope = 'all',
  name = `key-${scope.replace(':', '-')}-${Math.random().toString(36).slice(2, 8)}`,
): Promise<{ name: string; key: string; call: AdminCall }> {
  const created = await runtime.services.adminKeys.create(name, scope);
  return { name, key: created.key, call: adminCaller(runtime.app, created.key) };
}

export interface GeneratedItem {
  id: number;
  name: string;
  brand: string;
  product_type: string;
  product_subtype: string;
  description: string;
  thc: number | null;
  flavors: string[];
  active: boolean;
  prices: { unit: string; amount: number; price: number; stock: number | null }[];
}

/** `count` canonical items named `<prefix>-<n>`, ids from `firstId`, each with two price entries. */
export function generateMenu(count: number, prefix: string, firstId = 1): GeneratedItem[] {
  return Array.from({ length: count }, (_, index) => ({
    id: firstId + index,
    name: `${prefix}-${index}`,
    brand: `${prefix} brand`,
    product_type: index % 2 === 0 ? 'Flower' : 'Edible',
    product_subtype: 'Hybrid',
    description: `Item ${index} of the ${prefix} menu, generated for a sync test.`,
    thc: (index % 30) + 0.5,
    flavors: ['Pine', 'Citrus'],
    active: true,
    prices: [
      { unit: 'gram', amount: 1, price: 10 + (index % 10), stock: index % 5 },
      { unit: 'ounce', amount: 0.125, price: 35.5, stock: null },
    ],
  }));
}

/** The stock of one price entry as the services read it from the database (undefined: no such entry). */
export async function stockOf(
  runtime: Pick<Runtime, 'services'>,
  dispensaryId: number,
  itemId: number,
  unit: string,
  amount: number,
): Promise<number | null | undefined> {
  const items = await runtime.services.menus.items(dispensaryId);
  const price = items
    .find((item) => item.id === itemId)
    ?.prices.find((entry) => entry.unit === unit && entry.amount === amount);
  return price === undefined ? undefined : price.stock;
}

/** The whole audit log. */
export function auditLog(runtime: Pick<Runtime, 'services'>) {
  return runtime.services.audit.list({ limit: 100_000 });
}

/** Asserts that none of `secrets` occurs in `text` (each named in the failure). */
export function expectNoSecrets(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(7);
    expect(text.includes(secret), `a secret (${secret.slice(0, 4)}…) appears`).toBe(false);
  }
}

/** Sleeps past the current millisecond, so that a following write gets a later time than `now`. */
export async function tick(ms = 5): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}
