import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { v1Menu } from '../../src/forms/form-v1/menu.js';
import { parsePageQuery, queryPage } from '../../src/http/routes/display/menu-query.js';
import { ChangeFeed } from '../../src/services/change-feed.js';
import type { Services } from '../../src/services/index.js';
import { MenuReader } from '../../src/services/menu-reader.js';
import { PublishedMenus } from '../../src/services/published-menus.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { SAMPLE_MENU, servicesOver } from '../helpers/runtime.js';

setFlagsFromString('--expose-gc');
/** A full collection (the flag above lets a new context see `gc`). */
const collectGarbage = runInNewContext('gc') as () => void;

/** Whether the object `ref` points to was collected: a few full collections, each after a turn. */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 5; round++) {
    // A WeakRef's target stays alive until the end of the turn it was read in.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

/**
 * Form v1 and the public page keep each dispensary's last indexed menu version, so that the next
 * version's index keeps the unchanged items' rows. A dispensary removed must take that with it: a
 * server that onboards and removes dispensaries for months must not hold a menu for each one it ever
 * served.
 */
describe('Form v1 and the public page after a dispensary is removed', () => {
  const database = freshDatabase('each');
  let services: Services;
  let feed: ChangeFeed;
  beforeEach(async () => {
    services = await servicesOver(database.address);
    // Polled by hand: a removal reaches the caches as another process's write would.
    feed = new ChangeFeed(services.store, 3_600_000);
    await feed.start();
  });
  afterEach(async () => {
    feed.stop();
    await services.store.close();
  });

  /** A published dispensary with the sample menu. */
  async function dispensary(): Promise<number> {
    const { id } = await services.dispensaries.createWithStore('Closing Shop', { timezone: 'UTC' });
    await services.dispensaries.update(id, { published: true, slug: 'closing-shop' });
    await services.menus.replace(id, services.menus.validate(SAMPLE_MENU));
    await feed.poll();
    return id;
  }

  it('Form v1 lets go of its menu', async () => {
    const reader = new MenuReader(services.store, feed);
    const form = v1Menu({ menus: reader });
    const id = await dispensary();
    // In a function of its own, so that no variable here holds the menu.
    const read = async () => {
      await form.view({ q: 'blue' }).read(id, 'identity');
      return new WeakRef((await reader.priced(id)).items);
    };
    const items = await read();
    await services.dispensaries.remove(id);
    await feed.poll();
    expect(await collected(items)).toBe(true);
  });

  it('the public page lets go of its menu', async () => {
    const published = new PublishedMenus(services.store, feed);
    const id = await dispensary();
    const read = async () => {
      const menu = await published.menu(id);
      const source = published.sourceOf(menu);
      queryPage(menu, source, parsePageQuery({ q: 'blue' }, menu.store));
      return new WeakRef(source.items);
    };
    const items = await read();
    await services.dispensaries.remove(id);
    await feed.poll();
    expect(await collected(items)).toBe(true);
  });
});
