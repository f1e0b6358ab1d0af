import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_B_NAMES } from '../../src/config/settings.js';
import { CANONICAL_ITEM_EXAMPLE } from '../../src/domain/item-schema.js';
import { dispensaryChanges } from '../../src/forms/common/changes.js';
import { FORMS } from '../../src/forms/index.js';
import { encodeCursor } from '../../src/services/menu-feed.js';
import { MenuReader } from '../../src/services/menu-reader.js';
import { openStore } from '../../src/store/open.js';
import type { MenuChange, Store } from '../../src/store/store.js';
import { BLUE_DREAM } from '../helpers/fixtures.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** The event /events sends for a change: its /changes entry (toWire) as JSON.stringify writes it. */
const expectedFrame = (change: MenuChange, wire: unknown) =>
  `id: ${encodeCursor(change.seq)}\nevent: ${change.type}\ndata: ${JSON.stringify(wire)}\n\n`;

describe('an /events frame is its /changes entry, byte for byte', () => {
  let runtime: TestRuntime;
  /** Another connection to the runtime's database, for Form v1's reader (prices under the specials now). */
  let store: Store;
  let changes: MenuChange[];

  beforeAll(async () => {
    runtime = await testRuntime({ menu: [BLUE_DREAM] });
    const { services, seed } = runtime;
    const rich = { ...CANONICAL_ITEM_EXAMPLE, id: 7, external_id: 'rich-7', active: true };
    const menu = (items: unknown[]) =>
      services.menus.replace(seed.dispensaryId, services.menus.validate(items));
    await menu([BLUE_DREAM, rich]);
    await menu([
      { ...BLUE_DREAM, name: 'Blue Dream ✓ "quoted"' },
      { ...rich, active: false },
    ]);
    await menu([BLUE_DREAM]);
    await services.dispensaries.updateStoreInfo(seed.dispensaryId, { name: 'Renamed store' });
    changes = (await runtime.menuFeed.page(seed.dispensaryId, 0, 1_000)).changes;
    store = await openStore(runtime.database);
  });
  afterAll(async () => {
    await store.close();
    await runtime.close();
  });

  it('has upserts of rich items, removals and a store change to compare', () => {
    expect(new Set(changes.map((change) => change.type))).toEqual(
      new Set(['item.upserted', 'item.removed', 'store.updated']),
    );
  });

  for (const form of FORMS)
    for (const formBNames of FORM_B_NAMES)
      it(`Form ${form.id.toUpperCase()} (Form B names: ${formBNames}), framed first or listed first`, async () => {
        const context = { menus: new MenuReader(store, runtime.feed), formBNames };
        const dispensaryId = runtime.seed.dispensaryId;
        // A fresh mapping framing before listing, and one listing before framing.
        const framedFirst = await dispensaryChanges(form, context)(dispensaryId);
        const frames = changes.map((change) => framedFirst.frame(change));
        const listedFirst = await dispensaryChanges(form, context)(dispensaryId);
        const wires = changes.map((change) => listedFirst.toWire(change));
        for (const [index, change] of changes.entries()) {
          expect(frames[index]).toBe(expectedFrame(change, wires[index]));
          expect(frames[index]).toBe(expectedFrame(change, framedFirst.toWire(change)));
          expect(listedFirst.frame(change)).toBe(frames[index]);
          // Asked again: the same text.
          expect(framedFirst.frame(change)).toBe(frames[index]);
        }
      });
});
