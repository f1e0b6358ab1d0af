import { describe, expect } from 'vitest';
import { ConflictError } from '../../../src/store/store.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it, item } from './fixtures.js';

// Every write is one transaction with its change notice and audit entry (src/store/write.ts).
describe(`store writes are whole on ${DATABASE_KIND}`, () => {
  it('a replacement that fails halfway leaves the old menu, and no notice or audit entry', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1), item(2)]);
    const menu = await store.menus.read(a.id);
    const seq = await store.changes.lastSeq();
    const audited = (await store.audit.list({ limit: 100 })).length;
    // Two items with one id: the old menu is already deleted when the second insert fails.
    await expect(store.menus.replace(a.id, [item(3), item(3)])).rejects.toThrow();
    await expect(store.menus.upsertItems(a.id, [item(1), item(1)])).rejects.toThrow();
    expect(await store.menus.read(a.id)).toEqual(menu);
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await store.audit.list({ limit: 100 })).toHaveLength(audited);
  });

  it('a write of items the database refuses after writing some of its rows leaves the old menu', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1), item(2, { externalId: 'pos-2' })]);
    const menu = await store.menus.read(a.id);
    const seq = await store.changes.lastSeq();
    const audited = (await store.audit.list({ limit: 100 })).length;
    // Rows go to the database in slices while the next are made (rewriteItems): the last of 1,500
    // items takes the first's external_id, so its slice is refused after the rows of the first
    // slices (the two stored items among them, changed) were written.
    const items = Array.from({ length: 1_500 }, (_, index) =>
      item(index + 1, { name: 'Changed', externalId: `pos-${index + 1}` }),
    );
    items[1_499] = item(1_500, { externalId: 'pos-1' });
    await expect(store.menus.replace(a.id, items)).rejects.toBeInstanceOf(ConflictError);
    await expect(store.menus.upsertItems(a.id, items)).rejects.toBeInstanceOf(ConflictError);
    expect(await store.menus.read(a.id)).toEqual(menu);
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await store.audit.list({ limit: 100 })).toHaveLength(audited);
  });

  it('a unique violation is a ConflictError only where the write names one', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await expect(store.dispensaries.create('B', 'digest-a')).rejects.toBeInstanceOf(ConflictError);
    const duplicate = await store.menus.replace(a.id, [item(1), item(1)]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).not.toBeInstanceOf(ConflictError);
  });

  it('a store stays usable after a failed write (its connection is not left in a transaction)', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(store.dispensaries.create('B', 'digest-a')).rejects.toBeInstanceOf(ConflictError);
      await expect(store.menus.replace(a.id, [item(1), item(1)])).rejects.toThrow();
    }
    await store.menus.replace(a.id, [item(5)]);
    expect((await store.menus.read(a.id)).map((entry) => entry.id)).toEqual([5]);
    expect((await store.changes.since(0)).map((change) => change.kind)).toEqual(['dispensary', 'menu']);
  });
});
