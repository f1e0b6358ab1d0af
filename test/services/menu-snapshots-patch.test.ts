import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MenuItem } from '../../src/domain/item.js';
import { FormAMenu, toFormAItem } from '../../src/forms/form-a/item.js';
import { formBMenuSchema, toFormBItem } from '../../src/forms/form-b/item.js';
import type { ChangeListener } from '../../src/services/change-feed.js';
import { type BuildEvent, MenuSnapshots } from '../../src/services/menu-snapshots.js';
import { SPEC_ONLY_ENTRY_FIELDS, SPEC_ONLY_FIELDS } from '../domain/item-builder.js';

function item(id: number, version = 0, active = true): MenuItem {
  return {
    id,
    name: `Item ${id} v${version} "quoted" — ünïcode ✓`,
    brand: 'Brand',
    productType: 'Flower',
    productSubtype: 'Hybrid',
    description: `A description long enough to be worth compressing, item ${id}. `.repeat(3),
    image: null,
    cbd: null,
    cbn: 0.5,
    thc: 21.25,
    totalThc: null,
    totalCbd: null,
    flavors: ['Berry'],
    effects: [],
    conditions: [],
    active,
    ...SPEC_ONLY_FIELDS,
    prices: [
      {
        unit: 'gram',
        amount: 1,
        priceCents: 1200 + version,
        stock: version,
        ...SPEC_ONLY_ENTRY_FIELDS,
        updatedAt: `t${version}`,
      },
    ],
  };
}

/** An in-memory menu with a change log, as the store's live feed records it (one entry per item). */
function fakeStore(count: number) {
  const items = new Map<number, MenuItem>();
  for (let id = 1; id <= count; id++) items.set(id, item(id));
  const log: { seq: number; id: number }[] = [];
  let head = 0;
  const sorted = () => [...items.values()].sort((a, b) => a.id - b.id);
  return {
    items,
    /** Changes an item (undefined: deletes it) and records it, as a write does. */
    write(id: number, next: MenuItem | undefined) {
      if (next) items.set(id, next);
      else items.delete(id);
      log.push({ seq: ++head, id });
    },
    loads: [] as string[],
    feed: {
      loadMenu: async () => ({ items: sorted(), cursor: head }),
      loadChanges: async (_id: number, after: number) => {
        const itemIds = [...new Set(log.filter((entry) => entry.seq > after).map((entry) => entry.id))];
        const found = itemIds.flatMap((id) => (items.has(id) ? [items.get(id)!] : []));
        return { itemIds, items: found, cursor: head };
      },
    },
    sorted,
  };
}

function manualFeed() {
  const listeners: ChangeListener[] = [];
  let seq = 0;
  return {
    subscribe: (listener: ChangeListener) => listeners.push(listener),
    menu(dispensaryId: number) {
      for (const listener of listeners) listener({ seq: ++seq, kind: 'menu', dispensaryId, subject: null });
    },
  };
}

function setup(count: number) {
  const store = fakeStore(count);
  const notices = manualFeed();
  const builds: BuildEvent[] = [];
  const snapshots = new MenuSnapshots(
    {
      budgetBytes: 64 * 1024 * 1024,
      loadItems: async () => store.sorted(),
      feed: store.feed,
      onBuild: (event) => builds.push(event),
    },
    notices,
  );
  const views = [
    snapshots.listView('b', formBMenuSchema('both'), (entry) =>
      entry.active ? [toFormBItem(entry, 'both')] : [],
    ),
    snapshots.listView('a', FormAMenu, (entry) => (entry.active ? [toFormAItem(entry)] : [])),
  ];
  const expected = () => [
    JSON.stringify(
      store
        .sorted()
        .filter((entry) => entry.active)
        .map((entry) => toFormBItem(entry, 'both')),
    ),
    JSON.stringify(
      store
        .sorted()
        .filter((entry) => entry.active)
        .map(toFormAItem),
    ),
  ];
  return { store, notices, snapshots, views, expected, builds };
}

const decode = (body: Buffer, encoding: string) =>
  (encoding === 'gzip' ? gunzipSync(body) : encoding === 'br' ? brotliDecompressSync(body) : body).toString();

describe('MenuSnapshots: list views patched from the live feed', () => {
  it('after random changes, every coding of every view decodes to a from-scratch build, with its tag', async () => {
    const change = fc.record({
      id: fc.integer({ min: 1, max: 330 }),
      action: fc.constantFrom('update', 'update', 'update', 'delete', 'deactivate'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.array(fc.array(change, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        async (count, rounds) => {
          const { store, notices, views, expected } = setup(count);
          for (const view of views) await view.read(1, 'gzip');
          let version = 1;
          for (const round of rounds) {
            for (const { id, action } of round) {
              const next = action === 'delete' ? undefined : item(id, version++, action === 'update');
              store.write(id, next);
            }
            notices.menu(1);
            const fresh = setup(0);
            for (const [id, entry] of store.items) fresh.store.items.set(id, entry);
            const want = expected();
            for (const [index, view] of views.entries()) {
              for (const coding of ['gzip', 'identity', 'br']) {
                const answer = await view.read(1, coding);
                const scratch = await fresh.views[index]!.read(1, coding);
                expect(decode(answer.body, answer.encoding)).toBe(want[index]);
                expect(answer.tag).toBe(scratch.tag);
                expect(answer.etag).toBe(scratch.etag);
              }
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('a change re-reads only the items the feed names, and keeps every other segment', async () => {
    const { store, notices, views, builds } = setup(2000);
    const loads: number[] = [];
    const loadChanges = store.feed.loadChanges;
    store.feed.loadChanges = async (id, after) => {
      const changed = await loadChanges(id, after);
      loads.push(changed.itemIds.length);
      return changed;
    };
    const before = await views[0]!.read(1, 'gzip');
    store.write(7, item(7, 1));
    notices.menu(1);
    // Until the next read, the kept answer stays (a reader gets the patched one).
    const after = await views[0]!.read(1, 'gzip');
    expect(loads).toEqual([1]);
    expect(after.etag).not.toBe(before.etag);
    expect(builds.filter((event) => event.view === 'b')).toHaveLength(2);
    expect(await views[0]!.read(1, 'gzip')).toBe(after);
  });

  it('serves gzip to a client that also takes brotli while brotli is being built, then brotli', async () => {
    const { views } = setup(300);
    const first = await views[0]!.read(1, 'gzip, br');
    expect(first.encoding).toBe('gzip');
    await new Promise((resolve) => setTimeout(resolve, 200));
    let answer = await views[0]!.read(1, 'gzip, br');
    for (let tries = 0; answer.encoding !== 'br' && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await views[0]!.read(1, 'gzip, br');
    }
    expect(answer.encoding).toBe('br');
    expect(answer.tag).toBe(first.tag);
    // A client that takes brotli only waits for it.
    expect((await views[1]!.read(1, 'br')).encoding).toBe('br');
  });
});
