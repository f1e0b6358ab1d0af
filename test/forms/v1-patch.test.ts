import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MenuPricing } from '../../src/domain/special-pricing.js';
import { decodeCursor } from '../../src/forms/form-v1/cursor.js';
import { MenuIndex, orderPrint, page } from '../../src/forms/form-v1/engine.js';
import { FIELD_NAMES } from '../../src/forms/form-v1/item.js';
import { type MenuQuery, orderKey, parseMenuQuery } from '../../src/forms/form-v1/query.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { listening } from './driver.js';
import * as v1 from './v1-arbitraries.js';

/**
 * After a change, /v1/menu answers from the menu read last patched with the items the feed names and
 * the inactive items (MenuReader, patchMenu), from an index keeping the unchanged items' rows, and from
 * the earlier version's query results patched with the changed rows (MenuIndex): for random menus,
 * changes and queries, every answer is the one an index built afresh from the store gives.
 */
describe('Form v1: answers after changes equal a fresh build', () => {
  let runtime: TestRuntime;
  let base: string;
  let auth: Record<string, string>;
  beforeAll(async () => {
    runtime = await testRuntime();
    base = await listening(runtime.app);
    auth = v1.v1Auth(runtime.seed);
  });
  afterAll(() => runtime.close());

  /** One change to the menu, of an item picked by position among those there (active or not). */
  type Change =
    | { kind: 'stock'; pick: number; stock: number | null }
    | { kind: 'active'; pick: number }
    | { kind: 'edit'; pick: number; item: v1.Input }
    | { kind: 'delete'; pick: number }
    | { kind: 'add'; item: v1.Input };
  const pick = fc.nat();
  const arbitraryChange: fc.Arbitrary<Change> = fc.oneof(
    fc.record({
      kind: fc.constant('stock' as const),
      pick,
      stock: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    }),
    fc.record({ kind: fc.constant('active' as const), pick }),
    fc.record({ kind: fc.constant('edit' as const), pick, item: v1.arbitraryItem(0) }),
    fc.record({ kind: fc.constant('delete' as const), pick }),
    fc.record({ kind: fc.constant('add' as const), item: v1.arbitraryItem(0) }),
  );

  async function apply(change: Change): Promise<void> {
    const { menus, store } = runtime.services;
    const id = runtime.seed.dispensaryId;
    const items = await store.menus.read(id);
    if (change.kind === 'add') {
      const next = Math.max(0, ...items.map((item) => item.id)) + 1;
      await menus.upsert(id, v1.toItems([{ ...change.item, id: next }]));
      return;
    }
    const item = items[change.pick % Math.max(1, items.length)];
    if (!item) return;
    if (change.kind === 'stock') {
      const price = item.prices[0];
      if (price)
        await menus.setStock(id, [
          { item_id: item.id, unit: price.unit, amount: price.amount, stock: change.stock },
        ]);
    } else if (change.kind === 'active') await menus.setActive(id, item.id, !item.active);
    else if (change.kind === 'edit') await menus.upsert(id, v1.toItems([{ ...change.item, id: item.id }]));
    else await menus.deleteItem(id, item.id);
  }

  const get = (query: v1.Query, limit = '1000') => {
    const search = v1.asQuery(query);
    search.set('limit', limit);
    return fetch(`${base}/v1/menu?${search}`, { headers: { 'accept-encoding': 'identity', ...auth } });
  };

  /** The query as the engine reads it, whole (limit 1000). */
  function parsed(query: v1.Query): MenuQuery {
    const raw: Record<string, unknown> = { limit: '1000' };
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) raw[name] = Array.isArray(value) ? value : String(value);
    return parseMenuQuery(raw, FIELD_NAMES);
  }

  /** The print of the query's order in its first page's next_cursor (undefined on a last page). */
  async function printOfFirstPage(query: v1.Query): Promise<string | undefined> {
    const response = await get(query, '1');
    expect(response.status).toBe(200);
    const { next_cursor } = (await response.json()) as { next_cursor: string | null };
    return next_cursor === null ? undefined : decodeCursor(orderKey(parsed(query)), next_cursor).print;
  }

  /** The answer of an index built afresh from the store's items (no earlier version), and its order's print. */
  async function fresh(query: v1.Query) {
    const { store } = runtime.services;
    const id = runtime.seed.dispensaryId;
    const found = (await store.specials.ofDispensary(id))!;
    const index = MenuIndex.of(
      await store.menus.read(id),
      new MenuPricing(found.specials, found.timezone, Date.now()),
    );
    const { rows, total, facets } = page(index, parsed(query), 0);
    const print = total > 1 ? orderPrint(index, parsed(query)) : undefined;
    return {
      answer: { data: rows.map((row) => JSON.parse(row.json.bytes.toString()) as unknown), total, facets },
      print,
    };
  }

  it('for random menus, changes (active and inactive items) and queries', { timeout: 60_000 }, async () => {
    const { menus } = runtime.services;
    const withFacets = (query: v1.Query): v1.Query => ({
      ...query,
      facets: ['brand', 'product_type', 'tag'],
    });
    await fc.assert(
      fc.asyncProperty(
        v1.arbitraryMenu,
        fc.array(v1.arbitraryQuery, { minLength: 1, maxLength: 4 }),
        fc.array(fc.array(arbitraryChange, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        async (menu, queries, rounds) => {
          await menus.replace(runtime.seed.dispensaryId, menus.validate(v1.toItems(menu)));
          // Every item, the inactive ones and a search always among them: most changes are of one item.
          const always: v1.Query[] = [
            { active: 'all' },
            { active: 'false', sort: '-price' },
            { q: 'dream', active: 'all' },
            { q: 'blue' },
          ];
          const asked = [...always, ...queries].flatMap((query) => [query, withFacets(query)]);
          // Asked once before the changes: the next version patches these results (and their prints,
          // which a first page's cursor carries).
          for (const query of asked) {
            expect((await get(query)).status).toBe(200);
            await printOfFirstPage(query);
          }
          for (const changes of rounds) {
            for (const change of changes) await apply(change);
            for (const query of asked) {
              const response = await get(query);
              expect(response.status).toBe(200);
              const body = (await response.json()) as { data: unknown[]; total: number; facets: unknown };
              const built = await fresh(query);
              expect({ data: body.data, total: body.total, facets: body.facets }).toEqual(built.answer);
              expect(await printOfFirstPage(query)).toBe(built.print);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
