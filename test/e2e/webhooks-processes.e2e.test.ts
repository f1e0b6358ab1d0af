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

describe(`webhooks survive kill -9 of the server (${DATABASE_KIND})`, () => {
  let database: TestDatabase;
  let seed: Seed;
  let receiver: WebhookReceiver;
  const servers: ServerProcess[] = [];
  let key: string;
  let hook: { id: number; secret: string };

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    key = await createAdminKey(database.address);
    // Slow answers, so that deliveries are in flight when the server dies.
    receiver = await startReceiver({ status: 204, delayMs: 60 });
    hook = await createWebhook(database.address, seed, receiver.url);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await database?.cleanup();
  });

  it('a change accepted before the kill is delivered after the restart: none lost, in order', async () => {
    const first = await startServe(database.address, SERVE_ARGS);
    servers.push(first);
    await stockChanges([first], key, seed, 30);
    await until(() => receiver.received.length >= 5, 15_000, 'the first deliveries');
    first.child.kill('SIGKILL');
    await waitForExit(first.child);
    const delivered = receiver.received.length;
    expect(delivered).toBeLessThan(30);

    const second = await startServe(database.address, SERVE_ARGS);
    servers.push(second);
    await until(
      () => firstDeliveries(receiver.received).length >= 30,
      30_000,
      'all 30 deliveries after the restart',
    );
    const listed = await deliveriesOf(second, key, hook.id);
    expect(listed).toHaveLength(30);
    await until(
      async () =>
        (await deliveriesOf(second, key, hook.id)).every((delivery) => delivery.status === 'delivered'),
      15_000,
      'every delivery recorded as delivered',
    );
    // At least once: every change arrived; the one in flight at the kill may have arrived twice.
    expect(firstDeliveries(receiver.received).map((entry) => entry.id)).toEqual(
      listed.map((entry) => entry.id),
    );
    expect(receiver.received.length - 30).toBeLessThanOrEqual(1);
    const stocks = receiver
      .verified(hook.secret)
      .map((entry) => /"stock":(\d{3})/.exec(JSON.stringify(entry.payload.data.item))?.[1]);
    expect([...new Set(stocks)]).toEqual(Array.from({ length: 30 }, (_, index) => String(100 + index)));
  }, 120_000);
});

describe(`two server processes over one ${DATABASE_KIND} database deliver each change exactly once`, () => {
  let database: TestDatabase;
  let seed: Seed;
  let receiver: WebhookReceiver;
  let servers: ServerProcess[] = [];
  let key: string;
  let hook: { id: number; secret: string };

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    key = await createAdminKey(database.address);
    receiver = await startReceiver();
    hook = await createWebhook(database.address, seed, receiver.url);
    servers = await Promise.all([
      startServe(database.address, SERVE_ARGS),
      startServe(database.address, SERVE_ARGS),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await database?.cleanup();
  });

  it('changes written through both, and by two webhooks: each arrives once, in cursor order', async () => {
    const second = await startReceiver();
    try {
      const other = await createWebhook(database.address, seed, second.url);
      await stockChanges(servers, key, seed, 60);
      await until(
        () => receiver.received.length >= 60 && second.received.length >= 60,
        30_000,
        '60 deliveries each',
      );
      // Both processes were idle-polling and woken by every change: give a duplicate time to show.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received).toHaveLength(60);
      expect(second.received).toHaveLength(60);
      expect(receiver.verified(hook.secret)).toHaveLength(60);
      expect(second.verified(other.secret)).toHaveLength(60);
      const listed = await deliveriesOf(servers[0]!, key, hook.id);
      expect(receiver.received.map((entry) => entry.id)).toEqual(listed.map((entry) => entry.id));
      expect(listed.every((delivery) => delivery.status === 'delivered')).toBe(true);
    } finally {
      await second.close();
    }
  }, 90_000);
});
