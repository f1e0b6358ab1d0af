import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MENU_FORMS } from '../../src/forms/index.js';
import { createServices, type Services } from '../../src/services/index.js';
import { webhookKeySource } from '../../src/services/webhook-key.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';

const BACKLOG = 3_000;

/**
 * A full sync of a large menu queues a delivery per changed item for each endpoint. Finding what is
 * due must not cost time in the square of that backlog (it did: seconds per claim at 3,000, so one
 * full sync held deliveries back for hours), also while another process holds the head's lease.
 */
describe(`webhook claims with a backlog on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let store: Store;
  let services: Services;

  beforeEach(async () => {
    database = await testDatabase();
    store = await openStore(database.address, { poolSize: 4 });
    services = createServices(store, MENU_FORMS, undefined, undefined, {
      keys: webhookKeySource(randomBytes(32).toString('base64'), database.address, () => {}),
      allowPrivate: true,
    });
  });

  afterEach(async () => {
    await store.close();
    await database.cleanup();
  });

  it(`claims the head of ${BACKLOG} pending deliveries, and finds nothing due while it is leased, quickly`, async () => {
    const dispensary = await services.dispensaries.create('Backlog');
    const credential = await services.credentials.issue('backlog-integrator');
    await services.webhooks.create({
      credential: credential.username,
      dispensaryId: dispensary.id,
      url: 'http://127.0.0.1:9/hooks',
    });
    const items = Array.from({ length: BACKLOG }, (_, index) => ({
      id: index + 1,
      name: `Item ${index + 1}`,
      brand: 'Brand',
      product_type: 'Flower',
      active: true,
      prices: [{ unit: 'gram', amount: 1, price: 10, stock: 5 }],
    }));
    await services.menus.replace(dispensary.id, services.menus.validate(items));
    const timed = async () => {
      const started = performance.now();
      const claimed = await store.webhooks.claim(16, 60_000);
      return { claimed, ms: performance.now() - started };
    };
    const head = await timed();
    expect(head.claimed.map((delivery) => delivery.seq)).toEqual([1]);
    const leased = [await timed(), await timed(), await timed()];
    expect(leased.every((round) => round.claimed.length === 0)).toBe(true);
    // Milliseconds each on an idle machine; before, seconds each (a wide margin for a busy one).
    expect(Math.min(head.ms, ...leased.map((round) => round.ms))).toBeLessThan(500);
  });
});
