import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MENU_FORMS } from '../../src/forms/index.js';
import { ServiceError } from '../../src/services/errors.js';
import { createServices, type Services } from '../../src/services/index.js';
import { webhookKeySource } from '../../src/services/webhook-key.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';

/**
 * An integrator's webhooks have a cap (--integrator-webhook-cap). Subscriptions sent at once must
 * not each see room for one more: the count and the insert are one transaction, and on PostgreSQL the
 * credential's row is locked for it (a pool of several connections lets the requests really overlap).
 */
describe(`the webhook cap under concurrent subscriptions on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let store: Store;
  let services: Services;

  beforeEach(async () => {
    database = await testDatabase();
    store = await openStore(database.address, { poolSize: 6 });
    services = createServices(store, MENU_FORMS, undefined, undefined, {
      keys: webhookKeySource(randomBytes(32).toString('base64'), database.address, () => {}),
      allowPrivate: false,
    });
  });

  afterEach(async () => {
    await store.close();
    await database.cleanup();
  });

  it('six subscriptions at once under a cap of 2: two are made, four refused with 409 conflict', async () => {
    const dispensary = await services.dispensaries.create('Capped');
    const credential = await services.credentials.issue('capped-integrator');
    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) =>
        services.webhooks.create(
          {
            credential: credential.username,
            dispensaryId: dispensary.id,
            url: `https://hooks.example.com/${index}`,
          },
          undefined,
          undefined,
          2,
        ),
      ),
    );
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(2);
    for (const attempt of attempts.filter((found) => found.status === 'rejected')) {
      const error = (attempt as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe('conflict');
      expect((error as ServiceError).message).toContain(
        'as many webhooks as this server allows an integrator (2)',
      );
    }
    expect(await services.webhooks.list()).toHaveLength(2);
  });
});
