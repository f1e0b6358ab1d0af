import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization } from '../helpers/basic-auth.js';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import type { Seed } from '../helpers/runtime.js';
import { createAdminKey, seedDatabase } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';

assertBuilt();

const SLOW = { timeout: 120_000 };
const ITEMS = 240;
const LIMIT = 40;
const UNLIMITED = [
  '--rate-limit-credential',
  'off',
  '--rate-limit-address',
  'off',
  '--rate-limit-admin-key',
  'off',
];

/** The values of an item that decide every order: where a write puts it. */
interface Shape {
  name: string;
  price: number;
  thc: number;
  /** Whether "kush" is in its name (relevance 8 for q=kush), in its brand (4), or only its description (2). */
  kush: 'name' | 'brand' | 'description';
}

function item(id: number, shape: Shape, active = true) {
  return {
    id,
    active,
    name: shape.kush === 'name' ? `${shape.name} Kush` : shape.name,
    brand: shape.kush === 'brand' ? 'Kush Co' : 'Farm Co',
    product_type: 'Flower',
    description: 'An indoor kush flower.',
    cannabinoids: [
      { code: 'total-thc', min: shape.thc, max: shape.thc, unit: '%', basis: 'weight', status: 'detected' },
    ],
    prices: [{ unit: 'gram', amount: 1, price: shape.price, stock: 5 }],
  };
}

/** A GET on a connection of its own (no keep-alive pool): its status and body. */
function getOnNewConnection(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part: string) => {
        text += part;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}

const KUSH = ['name', 'brand', 'description'] as const;
const baseShape = (id: number): Shape => ({
  name: `Item ${String((id * 37) % 1000).padStart(3, '0')}`,
  price: 10 + ((id * 13) % 90),
  thc: 5 + ((id * 7) % 25),
  kush: KUSH[id % 3]!,
});

/**
 * Where a write puts an item in every ascending order at once: first (early) or last (late) by name,
 * price, price per gram, THC and relevance (best first); any write makes it the latest by updated_at.
 */
const early = (shape: Shape, step: number): Shape => ({
  name: `aa ${shape.name}`,
  price: 1 + step / 100,
  thc: 0.5,
  kush: 'name',
});
const late = (shape: Shape, step: number): Shape => ({
  name: `zz ${shape.name}`,
  price: 900 + step,
  thc: 99,
  kush: 'description',
});

const SORTS = ['name', 'price', 'price_per_gram', 'thc', 'updated_at', 'relevance'].flatMap((key) => [
  key,
  `-${key}`,
]);

describe(`paging /v1/menu on two workers while a client writes, on ${DATABASE_KIND}`, SLOW, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let seed: Seed;
  let adminKey: string;
  const shapes = new Map<number, Shape>();
  let nextId = ITEMS + 1;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address, 'Paged');
    adminKey = await createAdminKey(database.address);
    // Two workers: each keeps the versions it gave cursors out for, and a page may reach either.
    server = await startServe(database.address, [...UNLIMITED, '--workers', '2']);
    // startServe saw one worker ready; the other may still be connecting to a busy database.
    const bothReady = async () => {
      for (const _worker of [1, 2])
        if ((await getOnNewConnection(`${server.url}/readyz`, {})).status !== 200) return false;
      return true;
    };
    await until(bothReady, 30_000, 'both workers ready', 200);
    for (let id = 1; id <= ITEMS; id++) shapes.set(id, baseShape(id));
    await admin(
      'PUT',
      '/menu',
      [...shapes].map(([id, shape]) => item(id, shape)),
    );
  }, SLOW.timeout);
  afterAll(async () => {
    await server?.stop();
    await database?.cleanup();
  }, SLOW.timeout);

  /** A sync API write of the seed's dispensary, through the server (another client of it). */
  async function admin(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(`${server.url}/admin/v1/dispensaries/${seed.dispensaryId}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, `${method} ${path}: ${await response.text()}`).toBeLessThan(300);
  }

  const headers = () => ({
    authorization: basicAuthorization(`${seed.username}:${seed.password}`),
    'dispensary-token': seed.token,
  });

  /**
   * A page of /v1/menu. `fresh`: on a connection of its own, which the cluster's primary hands to the
   * next worker in turn, so that a paging's pages alternate between the two workers.
   */
  async function read(
    query: URLSearchParams,
    fresh = false,
  ): Promise<{ ids: number[]; next: string | null }> {
    const url = `${server.url}/v1/menu?${query}`;
    const { status, text } = fresh
      ? await getOnNewConnection(url, headers())
      : await fetch(url, { headers: headers() }).then(async (response) => ({
          status: response.status,
          text: await response.text(),
        }));
    expect(status, text).toBe(200);
    const body = JSON.parse(text) as { data: { id: number }[]; next_cursor: string | null };
    return { ids: body.data.map((entry) => entry.id), next: body.next_cursor };
  }

  it.each(SORTS)(
    'sort=%s: no item twice, none skipped that stayed in the result',
    async (sort) => {
      const base = new URLSearchParams({ sort, fields: 'id' });
      if (sort.endsWith('relevance')) base.set('q', 'kush');
      const descending = sort.startsWith('-');
      const whole = new URLSearchParams({ ...Object.fromEntries(base), limit: '1000' });
      // The items in the result at the start: each stays until it is removed or deactivated.
      const stayed = new Set((await read(whole)).ids);
      const listed: number[] = [];
      let cursor: string | null = null;
      let step = 0;
      do {
        const query = new URLSearchParams(base);
        query.set('limit', String(LIMIT));
        if (cursor) query.set('cursor', cursor);
        const page = await read(query, true);
        listed.push(...page.ids);
        cursor = page.next;
        if (!cursor) break;
        step++;
        // The writes between two pages: an item listed already moves to the end of the order, one not
        // listed yet to its start (across the cursor, both); a new item; one not listed yet leaves.
        const seen = new Set(listed);
        const order = (await read(whole)).ids;
        const listedOne = order.find((id) => seen.has(id))!;
        const unlisted = order.filter((id) => !seen.has(id));
        const [toStart, leaving] = [unlisted.at(-1)!, unlisted.at(-2)];
        const [forward, backward] = descending ? [early, late] : [late, early];
        shapes.set(listedOne, forward(shapes.get(listedOne)!, step));
        shapes.set(toStart, backward(shapes.get(toStart)!, step));
        const added = nextId++;
        shapes.set(added, baseShape(added));
        const written = [listedOne, toStart, added].map((id) => item(id, shapes.get(id)!));
        if (leaving !== undefined) {
          stayed.delete(leaving);
          // Every third step deletes it; the others deactivate it in the same write.
          if (step % 3 === 0) await admin('DELETE', `/menu/items/${leaving}`);
          else written.push(item(leaving, shapes.get(leaving)!, false));
        }
        await admin('PATCH', '/menu/items', written);
      } while (cursor);
      const twice = listed.filter((id, index) => listed.indexOf(id) !== index);
      expect(twice, 'listed twice').toEqual([]);
      const skipped = [...stayed].filter((id) => !listed.includes(id));
      expect(skipped, 'skipped').toEqual([]);
    },
    SLOW.timeout,
  );
});
