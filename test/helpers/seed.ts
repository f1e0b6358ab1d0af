import { MENU_FORMS } from '../../src/forms/index.js';
import { createServices, type Services } from '../../src/services/index.js';
import { webhookKeySource } from '../../src/services/webhook-key.js';
import { openStore } from '../../src/store/open.js';
import { SAMPLE_MENU, type Seed, TEST_SCRYPT } from './runtime.js';
import { TEST_WEBHOOK_KEY } from './webhook-receiver.js';

/**
 * The set-up of the end-to-end tests, written in this process through the services the CLI's commands
 * call, over the same database their server processes open: a CLI process costs half a second of CPU
 * to start, and these tests are not about the CLI (test/cli/ and serve.e2e are). Webhook secrets are
 * encrypted with TEST_WEBHOOK_KEY, the key the servers are started with (KEY_ARGS).
 */
export async function withServices<T>(address: string, work: (services: Services) => Promise<T>): Promise<T> {
  const store = await openStore(address, { poolSize: 1 });
  try {
    const keys = webhookKeySource(TEST_WEBHOOK_KEY, address, () => {});
    return await work(
      createServices(store, MENU_FORMS, undefined, TEST_SCRYPT, { keys, allowPrivate: true }),
    );
  } finally {
    await store.close();
  }
}

/** One dispensary, one credential (`cli-integrator`) and the sample menu. */
export function seedDatabase(address: string, name = 'Cli Collective'): Promise<Seed> {
  return withServices(address, async ({ dispensaries, credentials, menus }) => {
    const dispensary = await dispensaries.create(name);
    const credential = await credentials.issue('cli-integrator');
    await menus.replace(dispensary.id, menus.validate(SAMPLE_MENU));
    return {
      dispensaryId: dispensary.id,
      token: dispensary.token,
      username: credential.username,
      password: credential.password,
    };
  });
}

/** A new admin key of scope all. */
export function createAdminKey(address: string, name = `k${Date.now()}`): Promise<string> {
  return withServices(address, async ({ adminKeys }) => (await adminKeys.create(name, 'all')).key);
}

/**
 * Subscribes `url` to the seed's dispensary for its credential (its deliveries in `form`'s item shape,
 * default b); gives the id and the signing secret.
 */
export function createWebhook(
  address: string,
  seed: Seed,
  url: string,
  events?: string[],
  form?: string,
): Promise<{ id: number; secret: string }> {
  return withServices(address, async ({ webhooks }) => {
    const created = await webhooks.create({
      credential: seed.username,
      dispensaryId: seed.dispensaryId,
      url,
      events,
      form,
    });
    return { id: created.webhook.id, secret: created.secret };
  });
}

/** A dispensary (no menu), a credential `reader` and an admin key of scope all, in a fresh database. */
export function seedDispensaryAndKey(address: string): Promise<Seed & { key: string }> {
  return withServices(address, async ({ dispensaries, credentials, adminKeys }) => {
    const dispensary = await dispensaries.create('Ops Test');
    const credential = await credentials.issue('reader');
    const { key } = await adminKeys.create(`ops-${Math.random().toString(36).slice(2, 8)}`, 'all');
    return { dispensaryId: dispensary.id, token: dispensary.token, key, ...credential };
  });
}
