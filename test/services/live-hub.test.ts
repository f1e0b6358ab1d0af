import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { secretDigest } from '../../src/auth/secrets.js';
import { ChangeFeed } from '../../src/services/change-feed.js';
import { RateLimitedError } from '../../src/services/errors.js';
import { type EndReason, LiveHub, type LiveSubscriber } from '../../src/services/live-hub.js';
import { openStore } from '../../src/store/open.js';
import type { MenuChange, Store } from '../../src/store/store.js';
import { DATABASE_KIND } from '../helpers/database.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { item } from '../store/contract/fixtures.js';

/** A subscriber that records what the hub hands it. */
function recorder(dispensaryId: number, access?: LiveSubscriber['access']) {
  const batches: MenuChange[][] = [];
  const ends: EndReason[] = [];
  const subscriber: LiveSubscriber = {
    dispensaryId,
    ...(access && { access }),
    changes: (batch) => batches.push([...batch]),
    heartbeat: () => {},
    end: (reason) => ends.push(reason),
  };
  return { subscriber, batches, ends };
}

describe(`the live hub on ${DATABASE_KIND}`, () => {
  const database = freshDatabase('each');
  let store: Store;
  let feed: ChangeFeed;
  let hub: LiveHub;
  let a: number;
  let b: number;

  beforeEach(async () => {
    store = await openStore(database.address);
    feed = new ChangeFeed(store, 60_000);
    await feed.start();
    hub = new LiveHub(store, feed, { maxStreams: 1_000, maxStreamsPerCredential: 200, heartbeatMs: 60_000 });
    await hub.start();
    a = (await store.dispensaries.create('A', 'digest-a')).id;
    b = (await store.dispensaries.create('B', 'digest-b')).id;
    await store.menus.replace(a, [item(1), item(2)]);
    await feed.poll();
    await hub.wake();
  });
  afterEach(async () => {
    hub.stop();
    feed.stop();
    await store.close();
  });

  it('reads new changes once per wake and hands each dispensary’s to its subscribers only', async () => {
    const many = Array.from({ length: 100 }, () => recorder(a));
    const other = recorder(b);
    for (const { subscriber } of [...many, other]) hub.subscribe(subscriber);
    const reads = vi.spyOn(store.menuChanges, 'since');
    await store.menus.setStock(a, [{ itemId: 1, unit: 'gram', amount: 1, stock: 3 }]);
    await feed.poll();
    await hub.wake();
    // One read for the change (and none per subscriber), whatever the number of streams.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(2);
    reads.mockRestore();
    for (const { batches } of many) {
      expect(batches.map((batch) => batch.map((change) => [change.type, change.itemId]))).toEqual([
        [['item.upserted', 1]],
      ]);
    }
    // The same objects for every subscriber: a form maps each change once.
    expect(many[0]!.batches[0]![0]).toBe(many[99]!.batches[0]![0]);
    expect(other.batches).toEqual([]);
    expect(hub.stats.open).toBe(101);
  });

  it('refuses subscribers over the per-credential and per-process limits', async () => {
    const small = new LiveHub(store, feed, {
      maxStreams: 3,
      maxStreamsPerCredential: 2,
      heartbeatMs: 60_000,
    });
    await small.start();
    try {
      const access = { username: 'nobody', tokenDigest: secretDigest('x') };
      small.subscribe(recorder(a, { ...access }).subscriber);
      small.subscribe(recorder(a, { ...access }).subscriber);
      expect(() => small.subscribe(recorder(a, { ...access }).subscriber)).toThrow(RateLimitedError);
      small.subscribe(recorder(a).subscriber);
      expect(() => small.subscribe(recorder(a).subscriber)).toThrow(RateLimitedError);
      expect(small.stats.refused).toEqual({ process: 1, credential: 1 });
    } finally {
      small.stop();
    }
  });

  it('ends the subscribers of a revoked credential, a removed dispensary, and all on stop', async () => {
    await store.credentials.create('alice', 'hash');
    const alice = recorder(a, { username: 'alice', tokenDigest: 'digest-a' });
    const bob = recorder(b, { username: 'bob-never-issued', tokenDigest: 'digest-b' });
    const open = recorder(a);
    hub.subscribe(alice.subscriber);
    hub.subscribe(open.subscriber);
    // A credential that does not exist is ended on its first check, right after subscribing.
    hub.subscribe(bob.subscriber);
    await vi.waitFor(() => expect(bob.ends).toEqual(['revoked']));
    expect(alice.ends).toEqual([]);

    await store.credentials.revoke('alice');
    await feed.poll();
    await vi.waitFor(() => expect(alice.ends).toEqual(['revoked']));

    const carol = recorder(b, { username: 'carol', tokenDigest: 'digest-b' });
    await store.credentials.create('carol', 'hash');
    hub.subscribe(carol.subscriber);
    await store.dispensaries.remove(b);
    await feed.poll();
    await vi.waitFor(() => expect(carol.ends).toEqual(['removed']));

    hub.stop();
    expect(open.ends).toEqual(['shutdown']);
    expect(() => hub.subscribe(recorder(a).subscriber)).toThrow(/shutting down/);
  });
});
