import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { MenuItem } from '../../src/domain/item.js';
import { FormAMenu, toFormAItem } from '../../src/forms/form-a/item.js';
import { formBMenuSchema, toFormBItem } from '../../src/forms/form-b/item.js';
import type { ChangeListener } from '../../src/services/change-feed.js';
import { type BuildEvent, MenuSnapshots, type SnapshotOptions } from '../../src/services/menu-snapshots.js';
import { negotiateEncoding } from '../../src/services/snapshots/encoding.js';
import { compileSerializer } from '../../src/services/snapshots/serializer.js';
import type { Change, ChangeKind } from '../../src/store/store.js';
import { priceEntry, SPEC_ONLY_FIELDS } from '../domain/item-builder.js';

function item(id: number, overrides: Partial<MenuItem> = {}): MenuItem {
  return {
    id,
    name: `Item ${id} "quoted" — ünïcode ✓`,
    brand: 'Brand',
    productType: 'Flower',
    productSubtype: 'Hybrid',
    description: 'A description long enough that a menu of a few items is worth compressing. '.repeat(2),
    image: id % 2 === 0 ? null : `https://img.example/${id}.jpg`,
    cbd: null,
    cbn: 0.5,
    thc: 21.25,
    totalThc: null,
    totalCbd: 100,
    flavors: ['Berry', 'Pine'],
    effects: [],
    conditions: ['Stress'],
    active: id % 5 !== 0,
    ...SPEC_ONLY_FIELDS,
    prices: [
      priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: 10 }),
      priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3850, stock: null }),
    ],
    ...overrides,
  };
}

const menuOf = (count: number, overrides: Partial<MenuItem> = {}) =>
  Array.from({ length: count }, (_, index) => item(index + 1, overrides));

/** A change feed the test drives by hand. */
function manualFeed() {
  const listeners: ChangeListener[] = [];
  let seq = 0;
  return {
    subscribe: (listener: ChangeListener) => listeners.push(listener),
    emit(kind: ChangeKind, dispensaryId: number | null, subject: string | null = null) {
      const change: Change = { seq: ++seq, kind, dispensaryId, subject };
      for (const listener of listeners) listener(change);
    },
  };
}

/** Snapshots over an in-memory menu per dispensary, counting loads and builds. */
function setup(options: Partial<SnapshotOptions> = {}) {
  const menus = new Map<number, MenuItem[]>([
    [1, menuOf(20)],
    [2, menuOf(30)],
  ]);
  const loads: number[] = [];
  const builds: BuildEvent[] = [];
  const feed = manualFeed();
  const snapshots = new MenuSnapshots(
    {
      budgetBytes: 64 * 1024 * 1024,
      loadItems: async (id) => {
        loads.push(id);
        return menus.get(id) ?? [];
      },
      onBuild: (event) => builds.push(event),
      ...options,
    },
    feed,
  );
  const formB = snapshots.view('b:menu:both', formBMenuSchema('both'), async (id) =>
    (await snapshots.items(id)).filter((entry) => entry.active).map((entry) => toFormBItem(entry, 'both')),
  );
  const built = (encoding: string) => builds.filter((event) => event.encoding === encoding).length;
  return { snapshots, formB, menus, loads, builds, built, feed };
}

const expectedFormB = (items: MenuItem[]) =>
  JSON.stringify(items.filter((entry) => entry.active).map((entry) => toFormBItem(entry, 'both')));

describe('MenuSnapshots: built once, reused until a change', () => {
  it('serves the same bytes from one build to every read', async () => {
    const { formB, menus, loads, built } = setup();
    const first = await formB.read(1);
    const second = await formB.read(1);
    expect(first.body.toString()).toBe(expectedFormB(menus.get(1)!));
    expect(second.body).toBe(first.body);
    expect(loads).toEqual([1]);
    expect(built('identity')).toBe(1);
  });

  it('single flight: concurrent reads during a build wait for that one build, in every coding', async () => {
    const { formB, loads, built } = setup();
    const reads = await Promise.all(
      Array.from({ length: 60 }, (_, index) => formB.read(1, ['gzip', 'br', 'identity'][index % 3])),
    );
    expect(loads).toEqual([1]);
    expect(built('identity')).toBe(1);
    expect(built('gzip')).toBe(1);
    expect(built('br')).toBe(1);
    const bodies = new Set(reads.map((read) => read.body));
    expect(bodies.size).toBe(3);
  });

  it('builds each coding only when first asked for', async () => {
    const { snapshots, formB, built } = setup();
    await formB.read(1, 'gzip');
    expect(built('gzip')).toBe(1);
    expect(built('br')).toBe(0);
    expect(snapshots.has('b:menu:both', 1, 'br')).toBe(false);
    await formB.read(1, 'br');
    expect(built('br')).toBe(1);
    expect(built('identity')).toBe(1);
  });

  it('compressed codings decode to the identity bytes, with a strong ETag per coding of one hash', async () => {
    const { formB } = setup();
    const identity = await formB.read(1, 'identity');
    const gzip = await formB.read(1, 'gzip');
    const br = await formB.read(1, 'br');
    expect(identity.encoding).toBe('identity');
    expect(gzip.encoding).toBe('gzip');
    expect(br.encoding).toBe('br');
    expect(gunzipSync(gzip.body).equals(identity.body)).toBe(true);
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(gzip.body.length).toBeLessThan(identity.body.length);
    expect(identity.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(gzip.etag).toBe(`"${identity.tag}-gzip"`);
    expect(br.etag).toBe(`"${identity.tag}-br"`);
    expect(new Set([identity.tag, gzip.tag, br.tag]).size).toBe(1);
  });

  it('sends a body under the compression threshold as it is, whatever the client accepts', async () => {
    const { formB, menus, built } = setup();
    menus.set(3, [item(1, { description: '', flavors: [], conditions: [] })]);
    const read = await formB.read(3, 'br, gzip');
    expect(read.body.length).toBeLessThan(1024);
    expect(read.encoding).toBe('identity');
    expect((await formB.read(3, 'gzip')).encoding).toBe('identity');
    expect(built('gzip') + built('br')).toBe(0);
  });

  it('a failed build is not kept: the next read tries again', async () => {
    let fail = true;
    const snapshots = new MenuSnapshots({
      budgetBytes: 1024 * 1024,
      loadItems: async () => {
        if (fail) throw new Error('database unreachable');
        return menuOf(3);
      },
    });
    const view = snapshots.view('a:menu:active', FormAMenu, async (id) =>
      (await snapshots.items(id)).map(toFormAItem),
    );
    await expect(Promise.resolve(view.read(1))).rejects.toThrow('database unreachable');
    fail = false;
    expect(JSON.parse((await view.read(1)).body.toString())).toHaveLength(3);
  });
});

describe('MenuSnapshots: a change drops the dispensary at once', () => {
  it.each<ChangeKind>(['menu', 'store', 'dispensary'])(
    'a %s change drops that dispensary only; the next read rebuilds with a new ETag',
    async (kind) => {
      const { snapshots, formB, menus, feed, built } = setup();
      const before = await formB.read(1, 'gzip');
      await formB.read(2, 'gzip');
      menus.set(1, menuOf(21));
      feed.emit(kind, 1);
      expect(snapshots.has('b:menu:both', 1, 'gzip')).toBe(false);
      expect(snapshots.has('b:menu:both', 1, 'identity')).toBe(false);
      expect(snapshots.has('b:menu:both', 2, 'gzip')).toBe(true);
      const after = await formB.read(1, 'gzip');
      expect(after.etag).not.toBe(before.etag);
      expect(gunzipSync(after.body).toString()).toBe(expectedFormB(menus.get(1)!));
      expect(built('identity')).toBe(3);
    },
  );

  it('a change without a dispensary drops every snapshot', async () => {
    const { snapshots, formB, feed } = setup();
    await formB.read(1);
    await formB.read(2);
    feed.emit('menu', null);
    expect(snapshots.entryCount).toBe(0);
    expect(snapshots.usedBytes).toBe(0);
  });

  it('credential and admin key changes keep the snapshots (they change who reads, not what)', async () => {
    const { snapshots, formB, feed } = setup();
    await formB.read(1);
    feed.emit('credential', null, 'integrator');
    feed.emit('admin_key', null);
    expect(snapshots.has('b:menu:both', 1, 'identity')).toBe(true);
  });

  it('a build that began before a change is answered to its readers but never kept', async () => {
    const { menus, feed, loads } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const original = menus.get(1)!;
    const slow = new MenuSnapshots(
      {
        budgetBytes: 1024 * 1024,
        loadItems: async (id) => {
          loads.push(id);
          const items = menus.get(id)!;
          await gate;
          return items;
        },
      },
      feed,
    );
    const view = slow.view('b:menu:both', formBMenuSchema('both'), async (id) =>
      (await slow.items(id)).filter((entry) => entry.active).map((entry) => toFormBItem(entry, 'both')),
    );
    const early = Promise.resolve(view.read(1, 'gzip'));
    await new Promise((resolve) => setImmediate(resolve));
    menus.set(1, menuOf(25));
    feed.emit('menu', 1);
    // A read after the change does not join the stale build: it starts its own.
    const late = Promise.resolve(view.read(1, 'gzip'));
    release();
    const [stale, fresh] = await Promise.all([early, late]);
    expect(gunzipSync(stale.body).toString()).toBe(expectedFormB(original));
    expect(gunzipSync(fresh.body).toString()).toBe(expectedFormB(menus.get(1)!));
    expect(loads).toEqual([1, 1]);
    // Only the build that started after the change was kept.
    const kept = await view.read(1, 'gzip');
    expect(kept.body).toBe(fresh.body);
  });

  it('a change during compression keeps neither the stale identity nor its coding', async () => {
    const { formB, snapshots, menus, feed } = setup();
    const reading = Promise.resolve(formB.read(1, 'br'));
    // The identity build finishes first; the change lands while brotli runs.
    await new Promise((resolve) => setImmediate(resolve));
    menus.set(1, menuOf(22));
    feed.emit('menu', 1);
    await reading;
    expect(snapshots.has('b:menu:both', 1, 'br')).toBe(false);
    const next = await formB.read(1, 'br');
    expect(brotliDecompressSync(next.body).toString()).toBe(expectedFormB(menus.get(1)!));
  });
});

describe('MenuSnapshots: the byte budget', () => {
  it('evicts the least recently used entries and never holds more than the budget', async () => {
    const { formB: probe } = setup();
    const size = (await probe.read(1)).body.length;
    // Room for three identity snapshots of this size (plus their bookkeeping), not four.
    const budget = 3 * (size + 256) + 100;
    const { snapshots, formB, menus } = setup({ budgetBytes: budget });
    for (let id = 3; id <= 6; id++) menus.set(id, menuOf(20));
    await formB.read(1);
    await formB.read(3);
    await formB.read(4);
    expect(snapshots.usedBytes).toBeLessThanOrEqual(budget);
    // 1 is read again: now 3 is the least recently used, and goes when 5 arrives.
    await formB.read(1);
    await formB.read(5);
    expect(snapshots.has('b:menu:both', 1, 'identity')).toBe(true);
    expect(snapshots.has('b:menu:both', 3, 'identity')).toBe(false);
    expect(snapshots.has('b:menu:both', 4, 'identity')).toBe(true);
    expect(snapshots.has('b:menu:both', 5, 'identity')).toBe(true);
    expect(snapshots.usedBytes).toBeLessThanOrEqual(budget);
  });

  it('stays within the budget under many dispensaries and codings', async () => {
    const budget = 40_000;
    const { snapshots, formB, menus } = setup({ budgetBytes: budget });
    for (let id = 1; id <= 40; id++) menus.set(id, menuOf(5 + id));
    for (let round = 0; round < 3; round++) {
      for (let id = 1; id <= 40; id++) {
        await formB.read(id, ['gzip', 'br', 'identity'][(id + round) % 3]);
        expect(snapshots.usedBytes).toBeLessThanOrEqual(budget);
      }
    }
    expect(snapshots.entryCount).toBeGreaterThan(0);
  });

  it('a round-robin over more menus than fit keeps the coding clients read, not the identity bytes', async () => {
    const { formB: probe } = setup();
    const identitySize = (await probe.read(1)).body.length + 256;
    const gzipSize = (await probe.read(1, 'gzip')).body.length + 256;
    // All twenty gzip answers fit, and only a few of the identity bytes they were compressed from.
    const budget = 20 * gzipSize + 3 * identitySize;
    const { snapshots, formB, menus, built } = setup({ budgetBytes: budget });
    for (let id = 1; id <= 20; id++) menus.set(id, menuOf(20, { description: `Menu ${id}. `.repeat(20) }));
    for (let id = 1; id <= 20; id++) await formB.read(id, 'gzip');
    expect(built('identity')).toBe(20);
    for (let round = 0; round < 2; round++) {
      for (let id = 1; id <= 20; id++) await formB.read(id, 'gzip');
    }
    expect(built('identity')).toBe(20);
    expect(built('gzip')).toBe(20);
    expect(snapshots.usedBytes).toBeLessThanOrEqual(budget);
    // A client that reads the identity bytes makes them an answer like any other.
    await formB.read(20, 'identity');
    await formB.read(1, 'gzip');
    expect(snapshots.has('b:menu:both', 20, 'identity')).toBe(true);
  });

  it('identity bytes built only for compressing take at most an eighth of the budget, evicting nothing else', async () => {
    const { formB: probe } = setup();
    const identitySize = (await probe.read(1)).body.length + 256;
    const budget = 16 * identitySize;
    const { snapshots, formB, menus } = setup({ budgetBytes: budget });
    for (let id = 1; id <= 12; id++) menus.set(id, menuOf(20));
    for (let id = 1; id <= 12; id++) await formB.read(id, 'gzip');
    const keptIdentities = Array.from({ length: 12 }, (_, index) => index + 1).filter((id) =>
      snapshots.has('b:menu:both', id, 'identity'),
    );
    expect(keptIdentities.length * identitySize).toBeLessThanOrEqual(budget / 8);
    expect(keptIdentities).toEqual([11, 12]);
    for (let id = 1; id <= 12; id++) expect(snapshots.has('b:menu:both', id, 'gzip')).toBe(true);
    expect(snapshots.usedBytes).toBeLessThanOrEqual(budget);
  });

  it('serves an answer larger than the whole budget without keeping it', async () => {
    const { snapshots, formB, menus, built } = setup({ budgetBytes: 2_000 });
    const big = await formB.read(2);
    expect(big.body.toString()).toBe(expectedFormB(menus.get(2)!));
    expect(snapshots.entryCount).toBe(0);
    expect(snapshots.usedBytes).toBe(0);
    await formB.read(2);
    expect(built('identity')).toBe(2);
  });
});

describe('MenuSnapshots: items shared by builds in flight', () => {
  it('reads the items once for every view built at the same time, and keeps none of them', async () => {
    const { snapshots, loads } = setup();
    const active = snapshots.view('a:menu:active', FormAMenu, async (id) =>
      (await snapshots.items(id)).filter((entry) => entry.active).map(toFormAItem),
    );
    const all = snapshots.view('a:menu:all', FormAMenu, async (id) =>
      (await snapshots.items(id)).map(toFormAItem),
    );
    await Promise.all([active.read(1), all.read(1)]);
    expect(loads).toEqual([1]);
    snapshots.forget(1);
    await active.read(1);
    expect(loads).toEqual([1, 1]);
  });
});

describe('the serializer compiled from the route schemas', () => {
  const items = [...menuOf(12), item(13, { name: 'Control \u0001 chars \n and "quotes" \\ \ud83c\udf3f' })];

  it('writes byte for byte what fast-json-stringify writes for the whole array (what Fastify sent)', () => {
    for (const names of ['both', 'table', 'sample'] as const) {
      const schema = formBMenuSchema(names);
      const wire = items.map((entry) => toFormBItem(entry, names));
      const whole = fastJson(schema as fastJson.AnySchema) as (value: unknown) => string;
      expect(compileSerializer(schema)(wire).toString()).toBe(whole(wire));
    }
    const formA = items.map(toFormAItem);
    const whole = fastJson(FormAMenu as fastJson.AnySchema) as (value: unknown) => string;
    expect(compileSerializer(FormAMenu)(formA).equals(Buffer.from(whole(formA)))).toBe(true);
    expect(compileSerializer(FormAMenu)(formA).toString()).toBe(JSON.stringify(formA));
  });

  it('writes an empty array, large arrays across pieces, and plain objects', () => {
    const serialize = compileSerializer(FormAMenu);
    expect(serialize([]).toString()).toBe('[]');
    const many = menuOf(600).map(toFormAItem);
    expect(serialize(many).toString()).toBe(JSON.stringify(many));
    const object = compileSerializer(Type.Object({ name: Type.String(), count: Type.Integer() }));
    expect(object({ name: 'x', count: 2 }).toString()).toBe('{"name":"x","count":2}');
  });
});

describe('Accept-Encoding negotiation', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['identity', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0.8, gzip;q=0.5', 'br'],
    ['gzip;q=0.5', 'gzip'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.1, gzip;q=0.5', 'gzip'],
    ['*;q=0, gzip', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['identity;q=1, gzip;q=0.9', 'identity'],
    ['identity;q=0', 'identity'],
    ['*;q=0', 'identity'],
    ['deflate, compress, zstd', 'identity'],
    ['gzip;q=banana', 'identity'],
    ['gzip;q=2', 'identity'],
    [' gzip ; q=1.000 ', 'gzip'],
    [['gzip', 'br'], 'br'],
  ] as const)('%j chooses %s', (header, expected) => {
    expect(negotiateEncoding(header as string | string[] | undefined)).toBe(expected);
  });
});
