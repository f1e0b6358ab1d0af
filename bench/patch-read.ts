/**
 * `npx tsx bench/patch-read.ts`: the first Form B gzip read after a one-item stock change, in process
 * (no HTTP), 5,000 items, SQLite: the feed read, the patch, and a build from scratch for comparison.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formBMenuSchema, toFormBItem } from '../src/forms/form-b/item.js';
import { MenuSnapshots } from '../src/services/menu-snapshots.js';
import { openStore } from '../src/store/open.js';
import { generateDatabase } from './lib/data.js';
import { median } from './lib/writes.js';

const work = mkdtempSync(join(tmpdir(), 'menu-api-patch-'));
try {
  const database = join(work, 'menu.db');
  const db = await generateDatabase(database, { sizes: [5000], scale: 0 });
  const id = db.sized[0]!.id;
  const store = await openStore(database);
  const snapshots = new MenuSnapshots({
    budgetBytes: 256 * 1024 * 1024,
    loadItems: (dispensaryId) => store.menus.read(dispensaryId),
    feed: {
      loadMenu: (dispensaryId) => store.menus.readAt(dispensaryId),
      loadChanges: (dispensaryId, after) => store.menus.readChangedSince(dispensaryId, after),
    },
  });
  const view = snapshots.listView('b', formBMenuSchema('both'), (item) =>
    item.active ? [toFormBItem(item, 'both')] : [],
  );
  const items = (await store.menus.read(id)).filter((item) => item.active);
  await view.read(id, 'gzip');
  const total: number[] = [];
  const cpu: number[] = [];
  const feedRead: number[] = [];
  for (let round = 0; round < 15; round++) {
    const target = items[(round * 331) % items.length]!;
    const price = target.prices[0]!;
    await store.menus.setStock(id, [
      { itemId: target.id, unit: price.unit, amount: price.amount, stock: 1000 + round },
    ]);
    snapshots.menuChanged(id);
    let at = performance.now();
    await store.menus.readChangedSince(id, 0);
    feedRead.push(performance.now() - at);
    const used = process.cpuUsage();
    at = performance.now();
    await view.read(id, 'gzip');
    total.push(performance.now() - at);
    const spent = process.cpuUsage(used);
    cpu.push((spent.user + spent.system) / 1000);
  }
  const scratch: number[] = [];
  for (let round = 0; round < 5; round++) {
    snapshots.forget(id);
    const at = performance.now();
    await view.read(id, 'gzip');
    scratch.push(performance.now() - at);
  }
  await store.close();
  const show = (values: number[]) =>
    `median ${median(values).toFixed(1)} ms (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})`;
  console.log(`patched read: ${show(total)}; CPU ${show(cpu)}`);
  console.log(`(a feed read of every change since the start, for scale: ${show(feedRead)})`);
  console.log(`read after a change that names no items (build from scratch): ${show(scratch)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
