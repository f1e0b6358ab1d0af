import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { waitForExit } from '../helpers/process.js';
import type { Seed } from '../helpers/runtime.js';
import { createAdminKey, createWebhook, seedDatabase } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';
import {
  firstDeliveries,
  KEY_ARGS,
  type ReceiverMode,
  startReceiver,
  syncApi,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

assertBuilt();

const SERVE_ARGS = [...KEY_ARGS, '--webhook-allow-private', '--webhook-timeout-ms', '1000'];

/** `count` stock changes of item 3, one write each, through `servers` in turn. */
async function stockChanges(servers: ServerProcess[], key: string, seed: Seed, count: number, from = 100) {
  for (let index = 0; index < count; index++) {
    const api = syncApi(servers[index % servers.length]!, key);
    await api('PATCH', `/dispensaries/${seed.dispensaryId}/inventory`, [
      { item_id: 3, unit: 'gram', amount: 1, stock: from + index },
    ]);
  }
}

/** Every delivery of the webhook, oldest first, as the sync API lists them. */
async function deliveriesOf(server: ServerProcess, key: string, hook: number) {
  const listed = (await syncApi(server, key)('GET', `/webhooks/${hook}/deliveries?limit=500`)) as {
    id: string;
    status: string;
  }[];
  return listed.reverse();
}

/** A database with a seed and an admin key, a receiver answering as `mode`, subscribed; the test's servers are stopped after. */
function subscribed(mode: ReceiverMode) {
  const set = {
    servers: [] as ServerProcess[],
  } as {
    database: TestDatabase;
    seed: Seed;
    key: string;
    receiver: WebhookReceiver;
    hook: { id: number; secret: string };
    servers: ServerProcess[];
  };
  beforeAll(async () => {
    set.database = await testDatabase();
    set.seed = await seedDatabase(set.database.address);
    set.key = await createAdminKey(set.database.address);
    set.receiver = await startReceiver(mode);
    set.hook = await createWebhook(set.database.address, set.seed, set.receiver.url);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(set.servers.map((server) => server.stop()));
    await set.receiver?.close();
    await set.database?.cleanup();
  });
  return set;
}

// The two describes run at once (each has its own database, receiver and servers): most of the first
// is the 6 s lease of the delivery in flight at the kill running out, which the second fills.
describe.concurrent(`webhooks survive kill -9 of the server (${DATABASE_KIND})`, () => {
  // Slow answers, so that deliveries are in flight when the server dies.
  const set = subscribed({ status: 204, delayMs: 60 });

  it('a change accepted before the kill is delivered after the restart: none lost, in order', async () => {
    const first = await startServe(set.database.address, SERVE_ARGS);
    set.servers.push(first);
    await stockChanges([first], set.key, set.seed, 30);
    await until(() => set.receiver.received.length >= 5, 15_000, 'the first deliveries');
    first.child.kill('SIGKILL');
    await waitForExit(first.child);
    const delivered = set.receiver.received.length;
    expect(delivered).toBeLessThan(30);

    const second = await startServe(set.database.address, SERVE_ARGS);
    set.servers.push(second);
    await until(
      () => firstDeliveries(set.receiver.received).length >= 30,
      30_000,
      'all 30 deliveries after the restart',
    );
    const listed = await deliveriesOf(second, set.key, set.hook.id);
    expect(listed).toHaveLength(30);
    await until(
      async () =>
        (await deliveriesOf(second, set.key, set.hook.id)).every(
          (delivery) => delivery.status === 'delivered',
        ),
      15_000,
      'every delivery recorded as delivered',
    );
    // At least once: every change arrived; the one in flight at the kill may have arrived twice.
    expect(firstDeliveries(set.receiver.received).map((entry) => entry.id)).toEqual(
      listed.map((entry) => entry.id),
    );
    expect(set.receiver.received.length - 30).toBeLessThanOrEqual(1);
    const stocks = set.receiver
      .verified(set.hook.secret)
      .map((entry) => /"stock":(\d{3})/.exec(JSON.stringify(entry.payload.data.item))?.[1]);
    expect([...new Set(stocks)]).toEqual(Array.from({ length: 30 }, (_, index) => String(100 + index)));
  }, 120_000);
});

describe.concurrent(`two server processes over one ${DATABASE_KIND} database deliver each change exactly once`, () => {
  const set = subscribed({ status: 204 });
  beforeAll(async () => {
    set.servers.push(
      ...(await Promise.all([
        startServe(set.database.address, SERVE_ARGS),
        startServe(set.database.address, SERVE_ARGS),
      ])),
    );
  }, 120_000);

  it('changes written through both, and by two webhooks: each arrives once, in cursor order', async () => {
    const second = await startReceiver();
    try {
      const other = await createWebhook(set.database.address, set.seed, second.url);
      await stockChanges(set.servers, set.key, set.seed, 60);
      await until(
        () => set.receiver.received.length >= 60 && second.received.length >= 60,
        30_000,
        '60 deliveries each',
      );
      // Both processes were idle-polling and woken by every change: give a duplicate time to show.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(set.receiver.received).toHaveLength(60);
      expect(second.received).toHaveLength(60);
      expect(set.receiver.verified(set.hook.secret)).toHaveLength(60);
      expect(second.verified(other.secret)).toHaveLength(60);
      const listed = await deliveriesOf(set.servers[0]!, set.key, set.hook.id);
      expect(set.receiver.received.map((entry) => entry.id)).toEqual(listed.map((entry) => entry.id));
      expect(listed.every((delivery) => delivery.status === 'delivered')).toBe(true);
    } finally {
      await second.close();
    }
  }, 90_000);
});
