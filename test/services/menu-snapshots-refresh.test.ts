import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formBMenuSchema, toFormBItem } from '../../src/forms/form-b/item.js';
import { ChangeFeed } from '../../src/services/change-feed.js';
import type { Services } from '../../src/services/index.js';
import { type BuildEvent, MenuSnapshots, type ReadEvent } from '../../src/services/menu-snapshots.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { SAMPLE_MENU, servicesOver } from '../helpers/runtime.js';

/** When the special of these tests starts (it has no end). */
const START = '2026-07-01T20:00:00.000Z';

/** Lets the callbacks queued so far run (setImmediate, and the promise jobs they start). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('kept list snapshots patched right after a menu change, for lists that were read', () => {
  const database = freshDatabase('each');
  let services: Services;
  let feed: ChangeFeed;
  let dispensaryId: number;
  /** The cursor of each patch's read of the items the feed named (loadChanges). */
  let patchedFrom: number[];
  let builds: BuildEvent[];
  let reads: ReadEvent[];
  let formB: ReturnType<MenuSnapshots['listView']>;

  beforeEach(async () => {
    services = await servicesOver(database.address);
    const created = await services.dispensaries.createWithStore('Night Owl', {
      timezone: 'America/New_York',
    });
    dispensaryId = created.id;
    await services.menus.replace(dispensaryId, services.menus.validate(SAMPLE_MENU));
    const applies_to = { item_ids: [1, 7] };
    await services.specials.create(dispensaryId, {
      name: 'Launch',
      kind: 'amount_off',
      value: 1,
      applies_to,
      starts_at: START,
    });
    // Started after the writes above: its listeners hear only what the tests write.
    feed = new ChangeFeed(services.store, 60_000);
    await feed.start();
    patchedFrom = [];
    builds = [];
    reads = [];
    const store = services.store;
    const snapshots = new MenuSnapshots(
      {
        budgetBytes: 64 * 1024 * 1024,
        // The sample menu is small: compressed all the same, so that the list is kept.
        compressMinBytes: 0,
        loadItems: (id) => store.menus.read(id),
        feed: {
          loadMenu: (id) => store.menus.readAt(id),
          loadChanges: (id, after) => {
            patchedFrom.push(after);
            return store.menus.readChangedSince(id, after);
          },
        },
        onBuild: (event) => builds.push(event),
        onRead: (event) => reads.push(event),
      },
      feed,
    );
    formB = snapshots.listView('b:menu:both', formBMenuSchema('both'), (item) =>
      item.active ? [toFormBItem(item, 'both')] : [],
    );
  });
  afterEach(async () => {
    feed.stop();
    await services.store.close();
  });

  const names = async () =>
    (
      JSON.parse(gunzipSync((await formB.read(dispensaryId, 'gzip')).body).toString()) as { name: string }[]
    ).map((item) => item.name);

  it("a special's boundary: the list read before it is current before anyone reads it again", async () => {
    const before = await formB.read(dispensaryId, 'gzip');
    expect(await services.store.specials.recordBoundary(dispensaryId, START)).toBe(2);
    const head = await services.store.menuChanges.head();
    await feed.poll();
    await turn();
    // Patched from the cursor it was read at, with no read asking for it.
    expect(patchedFrom).toEqual([before.cursor]);
    await expect.poll(() => builds.length).toBe(2);
    expect(builds[1]).toMatchObject({ view: 'b:menu:both', encoding: 'gzip', stored: true });

    const after = await formB.read(dispensaryId, 'gzip');
    expect(reads.at(-1)).toMatchObject({ hit: true });
    // Form B shows shelf prices: the same bytes and ETag, at the feed's new head.
    expect(after.etag).toBe(before.etag);
    expect(after.cursor).toBe(head);
    expect(patchedFrom).toHaveLength(1);
  });

  it('a list nobody read since its last patch is patched at its next read, not at the change', async () => {
    await formB.read(dispensaryId, 'gzip');
    await services.menus.patchItem(dispensaryId, 7, { name: 'Renamed once' });
    await feed.poll();
    await expect.poll(() => builds.length).toBe(2);
    expect(patchedFrom).toHaveLength(1);

    await services.menus.patchItem(dispensaryId, 7, { name: 'Renamed twice' });
    await feed.poll();
    await turn();
    expect(patchedFrom).toHaveLength(1);

    expect(await names()).toContain('Renamed twice');
    expect(reads.at(-1)).toMatchObject({ hit: false });
    expect(patchedFrom).toHaveLength(2);
  });
});
