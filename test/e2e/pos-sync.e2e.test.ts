import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMenu } from '../helpers/admin.js';
import { adminKeyCreate, assertBuilt, commandJson, type ServerProcess, startServe } from '../helpers/cli.js';
import type { InventoryEntry } from '../helpers/inventory.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

assertBuilt();

interface FormBPrice {
  unit: string;
  amount: number;
  price: number;
  stock: number | null;
}
interface FormBItem {
  id: number;
  name: string;
  variants: FormBPrice[];
  prices: FormBPrice[];
}
interface FormAItem {
  id: number;
  name: string;
  active: boolean;
  product_prices: { unit: string; amount: number; price: number }[];
}

/**
 * The whole path over real HTTP: a real `menu-api serve` process on a fresh database, an operator
 * at the command line, a point-of-sale system on the sync API, and an integrator on both forms.
 */
describe('end to end: a point of sale syncs, an integrator sees each change on its next request', {
  timeout: 90_000,
}, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let dispensary: { id: number; token: string };
  let integrator: { username: string; password: string };
  let posKey: string;

  beforeAll(async () => {
    database = await testDatabase();
    const db = database.address;
    // The operator onboards the dispensary, the integrator, and the dispensary's point of sale.
    dispensary = await commandJson(db, ['dispensary', 'create', '--name', 'Harbor Collective']);
    integrator = await commandJson(db, ['credential', 'issue', '--username', 'menu-app']);
    posKey = (
      await commandJson<{ key: string }>(db, adminKeyCreate(`dispensary:${dispensary.id}`, 'harbor-pos'))
    ).key;
    server = await startServe(db);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await database?.cleanup();
  });

  /** The point of sale: JSON over HTTP with its bearer admin key. */
  const pos = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/admin/v1/dispensaries/${dispensary.id}${path}`, {
      method,
      headers: { authorization: `Bearer ${posKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** The integrator, Form A: credentials and token in a JSON body. */
  const formA = async <T>(path: string, extra: Record<string, unknown> = {}): Promise<T> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...integrator, collective_token: dispensary.token, ...extra }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  /** The integrator, Form B: credentials and token in headers. */
  const formB = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${server.url}${path}`, {
      headers: { store: dispensary.token, username: integrator.username, password: integrator.password },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const entry = (entries: InventoryEntry[], itemId: number, unit: string, amount: number) =>
    entries.find(
      (candidate) => candidate.item_id === itemId && candidate.unit === unit && candidate.amount === amount,
    );

  it('the point of sale performs a full sync; both forms and the inventory serve it', async () => {
    const menu = generateMenu(250, 'harbor');
    const sync = await pos('PUT', '/menu', menu);
    expect(sync).toEqual({
      status: 200,
      body: { dispensary_id: dispensary.id, items: 250, active_items: 250, price_entries: 500 },
    });
    const [a, b, inventoryA, inventoryB] = await Promise.all([
      formA<FormAItem[]>('/menu'),
      formB<FormBItem[]>('/menu'),
      formA<InventoryEntry[]>('/inventory'),
      formB<InventoryEntry[]>('/inventory'),
    ]);
    expect(a.length).toBe(250);
    expect(a[0]).toMatchObject({ id: 1, name: 'harbor-0', active: true });
    expect(b.length).toBe(250);
    expect(b[10]!.variants).toEqual([
      { unit: 'gram', amount: 1, price: 10, stock: 0 },
      { unit: 'ounce', amount: 0.125, price: 35.5, stock: null },
    ]);
    expect(inventoryA).toEqual(inventoryB);
    expect(inventoryB.length).toBe(500);
    expect(entry(inventoryB, 11, 'gram', 1)).toMatchObject({ stock: 0, in_stock: false });
  });

  it('a stock change is on every read endpoint on the very next request', async () => {
    // The integrator has read everything (a cache, if any, is warm), and remembers when.
    const polledAt = (await formB<InventoryEntry[]>('/inventory'))
      .map((candidate) => candidate.updated_at)
      .sort()
      .at(-1)!;
    await formA('/inventory');
    await formB('/menu');

    const change = await pos('PATCH', '/inventory', [
      { item_id: 11, unit: 'gram', amount: 1, stock: 25 },
      { item_id: 12, unit: 'gram', amount: 1, stock: 0 },
    ]);
    expect(change).toEqual({ status: 200, body: { updated: 2 } });

    // Form A has no stock in its menu: its inventory endpoint carries it.
    const inventoryA = await formA<InventoryEntry[]>('/inventory');
    expect(entry(inventoryA, 11, 'gram', 1)).toMatchObject({ stock: 25, in_stock: true });
    expect(entry(inventoryA, 12, 'gram', 1)).toMatchObject({ stock: 0, in_stock: false });

    const menuB = await formB<FormBItem[]>('/menu');
    const eleven = menuB.find((item) => item.id === 11)!;
    expect(eleven.variants[0]).toEqual({ unit: 'gram', amount: 1, price: 10, stock: 25 });
    expect(eleven.prices).toEqual(eleven.variants);
    expect(menuB.find((item) => item.id === 12)!.variants[0]!.stock).toBe(0);

    const inventoryB = await formB<InventoryEntry[]>('/inventory');
    expect(inventoryB).toEqual(inventoryA);

    // A poll with since returns exactly the two changed entries, in both forms.
    const since = encodeURIComponent(polledAt);
    const changedB = await formB<InventoryEntry[]>(`/inventory?since=${since}`);
    expect(changedB.map((candidate) => [candidate.item_id, candidate.stock])).toEqual([
      [11, 25],
      [12, 0],
    ]);
    expect(await formA<InventoryEntry[]>('/inventory', { since: polledAt })).toEqual(changedB);
  });

  it('an item the point of sale deactivates leaves Form B and Form A at once (Form A lists it with active false)', async () => {
    const patched = await pos('PATCH', '/menu/items/11', { active: false });
    expect(patched).toMatchObject({ status: 200, body: { id: 11, active: false } });
    expect((await formB<FormBItem[]>('/menu')).map((item) => item.id)).not.toContain(11);
    expect((await formA<FormAItem[]>('/menu')).map((item) => item.id)).not.toContain(11);
    const all = await formA<FormAItem[]>('/menu', { active: false });
    expect(all.find((item) => item.id === 11)).toMatchObject({ active: false });
    expect(entry(await formB<InventoryEntry[]>('/inventory'), 11, 'gram', 1)).toBeUndefined();
  });

  it('a second full sync that changes nothing leaves the inventory poll empty', async () => {
    const before = await formB<InventoryEntry[]>('/inventory');
    const since = before
      .map((candidate) => candidate.updated_at)
      .sort()
      .at(-1)!;
    const current = await fetch(`${server.url}/admin/v1/dispensaries/${dispensary.id}/menu`, {
      headers: { authorization: `Bearer ${posKey}` },
    });
    const sync = await pos('PUT', '/menu', await current.json());
    expect(sync.status).toBe(200);
    expect(await formB<InventoryEntry[]>(`/inventory?since=${encodeURIComponent(since)}`)).toEqual([]);
    expect(await formB<InventoryEntry[]>('/inventory')).toEqual(before);
  });

  it('the point of sale’s key reaches its own dispensary only', async () => {
    const response = await fetch(`${server.url}/admin/v1/dispensaries/${dispensary.id + 1}/menu`, {
      headers: { authorization: `Bearer ${posKey}` },
    });
    expect(response.status).toBe(403);
  });
});
