import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, syncTestRuntime } from '../../helpers/admin.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

/** A menu whose every item name starts with the prefix and whose every stock is the marker. */
function menuOf(prefix: string, count: number, stock: number) {
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `${prefix}-${index}`,
    brand: `${prefix}-brand`,
    product_type: 'Flower',
    description: `${prefix} ${'text '.repeat(20)}`,
    prices: [
      { unit: 'gram', amount: 1, price: 10, stock },
      { unit: 'gram', amount: 3.5, price: 30, stock },
    ],
  }));
}

const OLD = { prefix: 'old', count: 400, stock: 1 };
const NEW = { prefix: 'new', count: 300, stock: 2 };
type Version = typeof OLD;

/** Which menu a response is entirely, or a description of the mix it is. */
function versionOfNames(names: string[], stocks: number[]): Version | string {
  for (const version of [OLD, NEW]) {
    if (
      names.length === version.count &&
      names.every((name) => name.startsWith(`${version.prefix}-`)) &&
      stocks.every((stock) => stock === version.stock)
    ) {
      return version;
    }
  }
  const prefixes = new Set(names.map((name) => name.split('-')[0]));
  return `a mix: ${names.length} items, prefixes ${[...prefixes].join('+')}, stocks ${[...new Set(stocks)].join('+')}`;
}

describe('a full sync while integrators read: every read sees the old menu or the new one, never a mix', {
  timeout: 90_000,
}, () => {
  let runtime: TestRuntime;
  let baseUrl: string;
  let adminKeySecret: string;

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: menuOf(OLD.prefix, OLD.count, OLD.stock) });
    adminKeySecret = (await adminKey(runtime)).key;
    baseUrl = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => runtime.close());

  const formBMenu = async () => {
    const response = await fetch(`${baseUrl}/menu`, { headers: formBHeaders(runtime.seed) });
    expect(response.status).toBe(200);
    const items = (await response.json()) as { name: string; variants: { stock: number }[] }[];
    return versionOfNames(
      items.map((item) => item.name),
      items.flatMap((item) => item.variants.map((price) => price.stock)),
    );
  };
  const formAMenu = async () => {
    const response = await fetch(`${baseUrl}/menu`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(formABody(runtime.seed)),
    });
    expect(response.status).toBe(200);
    const items = (await response.json()) as { name: string }[];
    return versionOfNames(
      items.map((item) => item.name),
      [],
    );
  };
  const inventory = async () => {
    const response = await fetch(`${baseUrl}/inventory`, { headers: formBHeaders(runtime.seed) });
    expect(response.status).toBe(200);
    const entries = (await response.json()) as { stock: number }[];
    const stocks = entries.map((entry) => entry.stock);
    const version = [OLD, NEW].find(
      (candidate) =>
        entries.length === candidate.count * 2 && stocks.every((stock) => stock === candidate.stock),
    );
    return version ?? `a mix: ${entries.length} entries, stocks ${[...new Set(stocks)].join('+')}`;
  };
  const fullSync = async (version: Version) => {
    const response = await fetch(`${baseUrl}/admin/v1/dispensaries/${runtime.seed.dispensaryId}/menu`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminKeySecret}`, 'content-type': 'application/json' },
      body: JSON.stringify(menuOf(version.prefix, version.count, version.stock)),
    });
    expect(response.status).toBe(200);
  };

  /** Readers keep reading (each waits for its answer, then asks again) until the sync is done, and a little after. */
  async function readDuring(sync: Promise<void>, readers: number) {
    let done = false;
    const syncing = sync.finally(() => {
      done = true;
    });
    const seen: (Version | string)[] = [];
    let startedDuringSync = 0;
    const reader = async (index: number) => {
      const read = [formBMenu, formAMenu, inventory][index % 3]!;
      let after = 0;
      while (after < 2) {
        if (done) after += 1;
        else startedDuringSync += 1;
        seen.push(await read());
      }
    };
    await Promise.all([syncing, ...Array.from({ length: readers }, (_, index) => reader(index))]);
    return { seen, startedDuringSync };
  }

  it.each([
    ['old to new', NEW, OLD],
    ['new back to old', OLD, NEW],
    ['old to new again', NEW, OLD],
  ])('%s', async (_label, target, previous) => {
    // Every reader starts on the previous menu.
    expect(await formBMenu()).toBe(previous);
    const { seen, startedDuringSync } = await readDuring(fullSync(target), 9);
    // Reads really overlapped the sync (each reader's first read starts before the sync is answered).
    expect(startedDuringSync).toBeGreaterThanOrEqual(9);
    const mixes = seen.filter((version) => typeof version === 'string');
    expect(mixes).toEqual([]);
    expect(seen.length).toBeGreaterThanOrEqual(18);
    // The last reads of every reader came after the sync: all of them see the new menu.
    expect(seen.slice(-9).every((version) => version === target)).toBe(true);
    expect(await formBMenu()).toBe(target);
    expect(await inventory()).toBe(target);
  });

  it('many partial syncs and stock changes while reading: each read is one consistent state', async () => {
    await fullSync(OLD);
    const writes = (async () => {
      for (let round = 0; round < 3; round += 1) {
        const stock = round % 2 === 0 ? NEW.stock : OLD.stock;
        const response = await fetch(
          `${baseUrl}/admin/v1/dispensaries/${runtime.seed.dispensaryId}/inventory`,
          {
            method: 'PATCH',
            headers: { authorization: `Bearer ${adminKeySecret}`, 'content-type': 'application/json' },
            body: JSON.stringify(
              Array.from({ length: 50 }, (_, index) => [
                { item_id: index + 1, unit: 'gram', amount: 1, stock },
                { item_id: index + 1, unit: 'gram', amount: 3.5, stock },
              ]).flat(),
            ),
          },
        );
        expect(response.status).toBe(200);
      }
    })();
    let done = false;
    const finished = writes.finally(() => {
      done = true;
    });
    const seen: string[] = [];
    const reader = async () => {
      while (!done) {
        const response = await fetch(`${baseUrl}/inventory`, { headers: formBHeaders(runtime.seed) });
        const entries = (await response.json()) as { item_id: number; stock: number }[];
        const stocks = new Set(entries.filter((entry) => entry.item_id <= 50).map((entry) => entry.stock));
        seen.push([...stocks].sort().join('+'));
      }
    };
    await Promise.all([finished, reader(), reader(), reader()]);
    expect(seen.length).toBeGreaterThan(0);
    // A batch sets every entry at once: a read never sees half a batch.
    expect(seen.filter((stocks) => stocks !== '1' && stocks !== '2')).toEqual([]);
  });
});
