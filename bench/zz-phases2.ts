import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MENU_FORMS } from '../src/forms/index.js';
import { createServices } from '../src/services/index.js';
import { openStore } from '../src/store/open.js';
import { realisticMenu } from './data.js';
const store = await openStore(join(mkdtempSync(join(tmpdir(), 'ph-')), 'x.db'));
const services = createServices(store, MENU_FORMS);
const { id } = await services.dispensaries.create('x');
await services.menus.replace(id, services.menus.validate(realisticMenu(5000, 5000)));
const entries = (await store.menus.read(id)).flatMap((item) => item.prices.map((p) => ({ item_id: item.id, unit: p.unit, amount: p.amount }))).slice(0, 6680);
for (let round = 1; round <= 12; round++) {
  const t = performance.now(); if (round === 2) console.error(`from ${t.toFixed(0)}`);
  await services.menus.setStock(id, entries.map((e, i) => ({ ...e, stock: 100 * round + (i % 97) })));
  console.error(`round ${round}: ${(performance.now() - t).toFixed(1)} ms total`);
}
await store.close();
