import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { isStoreUnavailable } from '../../../src/store/unavailable.js';
import { onPostgres, serverOf, withPort } from '../../helpers/database.js';
import { freshDatabase } from '../../helpers/fresh-database.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';
import { item, pause } from './fixtures.js';

/** Retries `work` until it succeeds, or throws its last error after the timeout. */
async function eventually<T>(work: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await pause(50);
    }
  }
}

// The HTTP layer answers 503 for exactly the errors isStoreUnavailable accepts; this is where the
// store proves it raises those, and comes back, when PostgreSQL goes away (SQLite has no network).
describe.skipIf(!onPostgres)('PostgreSQL store losing its connection', () => {
  const database = freshDatabase();
  let proxy: TcpProxy;
  let proxied: Store;
  let direct: Store;
  let dispensaryId: number;
  beforeAll(async () => {
    proxy = await TcpProxy.start(serverOf(database.address));
    proxied = await openStore(withPort(database.address, proxy.port), { poolSize: 2 });
    direct = await openStore(database.address);
    dispensaryId = (await direct.dispensaries.create('Proxied', 'digest-proxied')).id;
    await direct.menus.replace(dispensaryId, [item(1), item(2)]);
  });
  afterAll(async () => {
    await proxy?.open();
    await proxied?.close();
    await direct?.close();
    await proxy?.close();
  });

  it('reads and writes fail as "unavailable" while the database is away, and work again after', async () => {
    expect(await proxied.menus.read(dispensaryId)).toHaveLength(2);
    await proxy.close();
    for (const attempt of [
      () => proxied.menus.read(dispensaryId),
      () => proxied.dispensaries.get(dispensaryId),
      () => proxied.menus.setItemActive(dispensaryId, 1, false),
      () => proxied.checkReady(),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(isStoreUnavailable(error), String(error)).toBe(true);
    }
    await proxy.open();
    expect(await eventually(() => proxied.menus.read(dispensaryId), 10_000)).toHaveLength(2);
    expect(await proxied.menus.setItemActive(dispensaryId, 1, false)).toBe(true);
  });

  it('listen() reconnects after losing its connection, and calls once more to catch up', async () => {
    let notices = 0;
    const stop = await proxied.listen!(() => {
      notices++;
    });
    try {
      expect(notices).toBe(1);
      await proxy.close();
      // Written while the listener cannot hear: its notice is lost, the call after reconnecting is not.
      await direct.menus.setItemActive(dispensaryId, 2, false);
      await pause(300);
      expect(notices).toBe(1);
      await proxy.open();
      const deadline = Date.now() + 10_000;
      while (notices < 2 && Date.now() < deadline) await pause(50);
      expect(notices).toBe(2);
    } finally {
      await stop();
    }
  });
});
