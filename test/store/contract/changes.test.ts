import { describe, expect, it as plainIt } from 'vitest';
import { ChangeFeed } from '../../../src/services/change-feed.js';
import { DATABASE_KIND, onPostgres } from '../../helpers/database.js';
import { it, item, lastChanges, pause, storesOnOneDatabase, writeFromTwoStores } from './fixtures.js';

describe(`store.changes on ${DATABASE_KIND}`, () => {
  it('record every kind of write, in order, with what changed', async ({ store }) => {
    const start = await store.changes.lastSeq();
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.dispensaries.setToken(a.id, 'digest-a2');
    await store.credentials.create('alice', 'hash');
    await store.menus.replace(a.id, [item(1)]);
    await store.menus.setItemActive(a.id, 1, false);
    await store.credentials.revoke('alice');
    await store.dispensaries.remove(a.id);

    const changes = await store.changes.since(start);
    expect(await lastChanges(store, start)).toEqual([
      ['dispensary', a.id, null],
      ['dispensary', a.id, null],
      ['credential', null, 'alice'],
      ['menu', a.id, null],
      ['menu', a.id, null],
      ['credential', null, 'alice'],
      ['dispensary', a.id, null],
    ]);
    const seqs = changes.map((change) => change.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await store.changes.lastSeq()).toBe(seqs.at(-1));
    expect(await store.changes.since(seqs[4]!)).toEqual(changes.slice(5));
    expect(await store.changes.since(seqs.at(-1)!)).toEqual([]);
  });

  it('record nothing for a write that changed nothing', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1)]);
    const seq = await store.changes.lastSeq();
    expect(await store.menus.setItemActive(a.id, 99, false)).toBe(false);
    expect(await store.dispensaries.setToken(999, 'x')).toBe(false);
    expect(await store.dispensaries.remove(999)).toBe(false);
    expect(await store.credentials.revoke('nobody')).toBe(false);
    await expect(store.menus.replace(999, [item(1)])).rejects.toThrow();
    expect(await store.changes.lastSeq()).toBe(seq);
  });

  it('start at 0 on a new database, as JS numbers', async ({ store }) => {
    expect(await store.changes.lastSeq()).toBe(0);
    expect(await store.changes.since(0)).toEqual([]);
    await store.dispensaries.create('A', 'digest-a');
    const [change] = await store.changes.since(0);
    expect(change).toEqual({ seq: 1, kind: 'dispensary', dispensaryId: 1, subject: null });
  });
});

describe(`change notices between stores on ${DATABASE_KIND}`, () => {
  const stores = storesOnOneDatabase();

  plainIt('a reader polling during concurrent writes from two stores never skips a notice', async () => {
    const { writers, reader } = stores;
    const feed = new ChangeFeed(reader, 60_000);
    const seen: number[] = [];
    feed.subscribe((change) => seen.push(change.seq));
    await feed.start();
    let writing = true;
    const polling = (async () => {
      while (writing) await feed.poll();
    })();
    const write = (index: number, n: number) =>
      writers[index]!.dispensaries.create(`Writer ${index} #${n}`, `digest-${index}-${n}`);
    try {
      await writeFromTwoStores(write);
    } finally {
      writing = false;
      await polling;
    }
    await feed.poll();
    feed.stop();
    const all = (await reader.changes.since(0)).map((change) => change.seq);
    expect(all).toHaveLength(50);
    // Delivered once each, in order, none skipped even when commits raced.
    expect(seen).toEqual(all);
  });

  plainIt.skipIf(!onPostgres)('listen() hears a write of another process, and stops when asked', async () => {
    const { writers, reader } = stores;
    let notices = 0;
    const stop = await reader.listen!(() => {
      notices++;
    });
    // One call right after connecting, to catch up on anything missed before.
    expect(notices).toBe(1);
    await writers[0]!.dispensaries.create('Heard', 'digest-heard');
    const deadline = Date.now() + 2_000;
    while (notices < 2 && Date.now() < deadline) await pause(10);
    expect(notices).toBe(2);
    await stop();
    await writers[0]!.dispensaries.create('Unheard', 'digest-unheard');
    await pause(200);
    expect(notices).toBe(2);
  });

  plainIt.skipIf(onPostgres)('SQLite offers no listen(): the periodic poll is the mechanism', () => {
    const { reader } = stores;
    expect(reader.listen).toBeUndefined();
  });

  plainIt('counts and large numbers come back as JS numbers on every database', async () => {
    const { reader } = stores;
    const [summary] = await reader.dispensaries.list();
    expect(typeof summary!.itemCount).toBe('number');
    expect(typeof (await reader.changes.lastSeq())).toBe('number');
  });
});
