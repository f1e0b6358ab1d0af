/**
 * `node --expose-gc --import tsx bench/lib/v1-index-memory.ts DB DISPENSARY_ID`, run by bench/v1.ts:
 * what Form v1's query index (src/forms/form-v1/engine.ts) adds to the heap for one menu (beside the
 * items it is built from), and what one kept query result adds; then the time of a whole store read
 * and index build (a cold menu), and of the steps of a first read after a one-item change (the store
 * read of the items the feed names, the patch of the menu, the index keeping the unchanged rows, the
 * query patched from the version before's, a search on the patched search index), medians of 5.
 * Prints one JSON line.
 */

import { patchMenu } from '../../src/domain/menu-patch.js';
import { MenuPricing } from '../../src/domain/special-pricing.js';
import { MenuIndex } from '../../src/forms/form-v1/engine.js';
import { FIELD_NAMES } from '../../src/forms/form-v1/item.js';
import { parseMenuQuery } from '../../src/forms/form-v1/query.js';
import { openStore } from '../../src/store/open.js';

const [database, dispensary] = process.argv.slice(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !database || !dispensary) throw new Error('usage: node --expose-gc … DB DISPENSARY_ID');

/** The heap (and buffers outside it) in use after full collections. */
const used = () => {
  for (let round = 0; round < 3; round++) gc();
  const memory = process.memoryUsage();
  // `external` holds `arrayBuffers` (Node's documentation): added again, a Buffer counted twice.
  return memory.heapUsed + memory.external;
};

const store = await openStore(database);
// Once before measuring, so that the code both run is compiled and loaded outside the figures.
MenuIndex.of(await store.menus.read(Number(dispensary)), new MenuPricing([], 'UTC', Date.now()));
const items = await store.menus.read(Number(dispensary));
const withItems = used();
const index = MenuIndex.of(items, new MenuPricing([], 'UTC', Date.now()));
const withIndex = used();
const query = parseMenuQuery({ product_type: 'Flower', sort: 'price', limit: '100' }, FIELD_NAMES);
const filtered = index.result(query);
const withResult = used();
const timed: Record<
  'readMs' | 'indexMs' | 'changedReadMs' | 'patchMs' | 'keptRowsMs' | 'queryMs' | 'searchMs',
  number[]
> = { readMs: [], indexMs: [], changedReadMs: [], patchMs: [], keptRowsMs: [], queryMs: [], searchMs: [] };
const pricing = new MenuPricing([], 'UTC', Date.now());
const search = parseMenuQuery({ q: 'blue dr' }, FIELD_NAMES);
// What a change costs now: the menu read last, patched with the items the feed names since its cursor.
let current = await store.menus.readAt(Number(dispensary));
let currentIndex = MenuIndex.of(current.items, pricing);
currentIndex.result(query);
currentIndex.result(search);
for (let round = 0; round < 5; round++) {
  let at = performance.now();
  const read = await store.menus.readAt(Number(dispensary));
  timed.readMs.push(performance.now() - at);
  at = performance.now();
  MenuIndex.of(read.items, new MenuPricing([], 'UTC', Date.now()));
  timed.indexMs.push(performance.now() - at);
  const target = current.items.filter((item) => item.active)[round * 331]!;
  const price = target.prices[0]!;
  await store.menus.setStock(Number(dispensary), [
    { itemId: target.id, unit: price.unit, amount: price.amount, stock: 1000 + round },
  ]);
  at = performance.now();
  const changed = (await store.menus.readChangedSince(Number(dispensary), current.cursor))!;
  timed.changedReadMs.push(performance.now() - at);
  at = performance.now();
  const patched = patchMenu(current.items, changed);
  timed.patchMs.push(performance.now() - at);
  at = performance.now();
  const next = MenuIndex.of(patched, pricing, { items: current.items, pricing, index: currentIndex });
  timed.keptRowsMs.push(performance.now() - at);
  at = performance.now();
  next.result(query);
  timed.queryMs.push(performance.now() - at);
  at = performance.now();
  next.result(search);
  timed.searchMs.push(performance.now() - at);
  current = { items: patched, cursor: changed.cursor };
  currentIndex = next;
}
await store.close();
console.log(
  JSON.stringify({
    items: items.length,
    indexBytes: withIndex - withItems,
    jsonBytes: index.rows.reduce((sum, row) => sum + row.json.bytes.length, 0),
    resultBytes: withResult - withIndex,
    resultItems: filtered.ranked.length,
    ...Object.fromEntries(Object.entries(timed).map(([name, values]) => [name, median(values)])),
  }),
);
