import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  cleanEnvironment,
  cliJson,
  REPOSITORY,
  runCli,
  type ServerProcess,
  startServe,
} from '../helpers/cli.js';
import { DATABASE_KIND, onPostgres, type TestDatabase, testDatabase } from '../helpers/database.js';
import { formBHeaders, formV1Headers } from '../helpers/http.js';
import { waitForExit } from '../helpers/process.js';
import type { Seed } from '../helpers/runtime.js';
import { createAdminKey, createWebhook, seedDatabase } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';
import {
  addWebhook,
  firstDeliveries,
  KEY_ARGS,
  startReceiver,
  syncApi,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

assertBuilt();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The Standard Webhooks signature computed by hand from the specification, without the library. */
function signedByHand(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * A server process with the test webhook key and `args`, and the sync API with a new admin key of it.
 * Webhooks are subscribed in this process (createWebhook), not through the CLI: the CLI's `webhook
 * add` is proved once, by the manual's receiver below.
 */
async function serveWebhooks(address: string, args: string[]) {
  const server = await startServe(address, [...KEY_ARGS, ...args]);
  const key = await createAdminKey(address);
  return { server, key, api: syncApi(server, key) };
}

/** Stops what a describe started, whichever of it was started. */
async function stopAll(
  server: ServerProcess | undefined,
  receivers: (WebhookReceiver | undefined)[],
  database: TestDatabase | undefined,
): Promise<void> {
  await server?.stop();
  for (const receiver of receivers) await receiver?.close();
  await database?.cleanup();
}

/**
 * What is not the database's to prove (the manual's receiver, the CLI's listing, which names a
 * webhook may not reach) runs on SQLite only: the PostgreSQL project runs what proves storage.
 */
const notAboutStorage = it.skipIf(onPostgres);

/** The first server's retry schedule: 100 ms, 200 ms, then 300 ms, twenty attempts in all (about 6 s). */
const QUICK_SCHEDULE = ['100ms', '200ms', ...Array<string>(18).fill('300ms')].join(',');

describe(`webhooks from a server process over ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let seed: Seed;
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  /** Receives the same changes, its webhook having chosen Form v1's item shape. */
  let receiverV1: WebhookReceiver;
  let hook: { id: number; secret: string };
  let hookV1: { id: number; secret: string };
  let api: ReturnType<typeof syncApi>;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    receiver = await startReceiver();
    receiverV1 = await startReceiver();
    hook = await createWebhook(database.address, seed, receiver.url);
    hookV1 = await createWebhook(database.address, seed, receiverV1.url, undefined, 'v1');
    ({ server, api } = await serveWebhooks(database.address, [
      '--webhook-allow-private',
      '--webhook-retry-schedule',
      QUICK_SCHEDULE,
      '--webhook-timeout-ms',
      '5000',
    ]));
  }, 120_000);
  afterAll(() => stopAll(server, [receiver, receiverV1], database), 60_000);

  it('every change type arrives in order, in Form B’s shape, signed (standardwebhooks and by hand)', async () => {
    const id = seed.dispensaryId;
    await api('PATCH', `/dispensaries/${id}/menu/items/3`, { name: 'Blue Dream XL' });
    const menu = (await (await fetch(`${server.url}/menu`, { headers: formBHeaders(seed) })).json()) as {
      id: number;
    }[];
    const formBItem3 = menu.find((item) => item.id === 3);
    await api('PATCH', `/dispensaries/${id}/inventory`, [
      { item_id: 7, unit: 'gram', amount: 0.5, stock: 9 },
    ]);
    await api('PATCH', `/dispensaries/${id}/menu/items/1`, { active: false });
    await api('DELETE', `/dispensaries/${id}/menu/items/7`);
    await api('PATCH', `/dispensaries/${id}`, { city: 'Denver' });

    await until(() => receiver.received.length >= 5, 15_000, 'five deliveries');
    const deliveries = receiver.verified(hook.secret).map((entry) => entry.payload);
    expect(deliveries.map((payload) => [payload.type, payload.data.item_id, payload.data.reason])).toEqual([
      ['item.upserted', 3, null],
      ['item.upserted', 7, null],
      ['item.removed', 1, 'deactivated'],
      ['item.removed', 7, 'deleted'],
      ['store.updated', null, null],
    ]);
    for (const payload of deliveries) {
      expect(payload.dispensary_id).toBe(id);
      expect(payload.cursor).toBe(payload.data.cursor);
      expect(payload.at).toBe(payload.data.at);
      expect(payload.type).toBe(payload.data.type);
      expect(Object.keys(payload.data).sort()).toEqual(['at', 'cursor', 'item', 'item_id', 'reason', 'type']);
    }
    expect(deliveries[0]!.data.item).toEqual(formBItem3);
    // `data` is the change exactly as Form B's /changes gives it.
    const changes = (await (
      await fetch(`${server.url}/changes`, { headers: formBHeaders(seed) })
    ).json()) as {
      changes: { cursor: string }[];
    };
    for (const payload of deliveries) {
      expect(changes.changes.find((change) => change.cursor === payload.cursor)).toEqual(payload.data);
    }
    expect(deliveries[1]!.data.item).toMatchObject({ id: 7 });
    expect(deliveries.slice(2).map((payload) => payload.data.item)).toEqual([null, null, null]);
    const ids = receiver.received.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(5);
    for (const entry of receiver.received) {
      expect(entry.id).toMatch(/^msg_[A-Za-z0-9_-]{16,}$/);
      expect(Math.abs(Number(entry.timestamp) - Date.now() / 1000)).toBeLessThan(600);
      expect(entry.signature).toBe(signedByHand(hook.secret, entry.id, entry.timestamp, entry.body));
    }
    const listed = await api('GET', `/webhooks/${hook.id}/deliveries`);
    expect(listed.map((delivery: { id: string }) => delivery.id).reverse()).toEqual(ids);

    // The webhook that chose Form v1 gets the same changes, each exactly as /v1/changes lists it: the
    // item in v1's shape with its effective prices (one mapping for both).
    await until(() => receiverV1.received.length >= 5, 15_000, 'five deliveries in Form v1’s shape');
    const inV1 = receiverV1.verified(hookV1.secret).map((entry) => entry.payload);
    expect(inV1.map((payload) => payload.cursor)).toEqual(deliveries.map((payload) => payload.cursor));
    const v1Changes = (await (
      await fetch(`${server.url}/v1/changes`, { headers: formV1Headers(seed) })
    ).json()) as { changes: { cursor: string }[] };
    for (const payload of inV1) {
      expect(v1Changes.changes.find((change) => change.cursor === payload.cursor)).toEqual(payload.data);
    }
    expect(inV1[0]!.data.item).toMatchObject({
      id: 3,
      name: 'Blue Dream XL',
      prices: expect.arrayContaining([expect.objectContaining({ effective_price: expect.any(Number) })]),
    });
    expect(inV1[0]!.data.item).not.toEqual(deliveries[0]!.data.item);
    expect(listed[0]).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 204 });
    expect(listed[0].attempt_log).toEqual([
      { at: expect.any(String), status_code: 204, latency_ms: expect.any(Number), error: null },
    ]);
  }, 60_000);

  it('a receiver that is down for a while gets everything once it is back, in order', async () => {
    const before = receiver.received.length;
    receiver.mode = { status: 503 };
    const id = seed.dispensaryId;
    for (const stock of [1, 2, 3, 4, 5, 6]) {
      await api('PATCH', `/dispensaries/${id}/inventory`, [{ item_id: 3, unit: 'gram', amount: 1, stock }]);
    }
    await until(
      () => receiver.received.slice(before).filter((entry) => entry.status === 503).length >= 3,
      15_000,
      'failed attempts',
    );
    receiver.mode = { status: 200 };
    await until(
      () => firstDeliveries(receiver.received.slice(before)).length >= 6,
      20_000,
      'the six deliveries after the receiver came back',
    );
    const accepted = firstDeliveries(receiver.received.slice(before));
    const verified = new Map(receiver.verified(hook.secret).map((entry) => [entry.id, entry.payload]));
    const stocks = accepted.map((entry) => {
      const item = verified.get(entry.id)!.data.item as {
        prices?: { stock: number | null }[];
        variants?: unknown;
      };
      return JSON.stringify(item).match(/"stock":(\d+)/)?.[1];
    });
    expect(stocks).toEqual(['1', '2', '3', '4', '5', '6']);
    // Only the head of the queue was tried while it failed: nothing later went before it.
    const failed = receiver.received.slice(before).filter((entry) => entry.status === 503);
    expect(new Set(failed.map((entry) => entry.id)).size).toBe(1);
    const listed = await api('GET', `/webhooks/${hook.id}/deliveries?limit=6`);
    const head = listed.at(-1);
    expect(head.attempts).toBeGreaterThan(1);
    expect(
      head.attempt_log.slice(0, -1).every((attempt: { status_code: number }) => attempt.status_code === 503),
    ).toBe(true);
  }, 60_000);

  it('a delivery held back (webhook disabled) is retried by the retry endpoint, and sent once its webhook is enabled', async () => {
    const failing = await startReceiver({ status: 500 });
    const second = await createWebhook(database.address, seed, failing.url, ['store.updated']);
    try {
      await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: 'Boulder' });
      await until(() => failing.received.length >= 2, 15_000, 'two failed attempts');
      await api('PATCH', `/webhooks/${second.id}`, { enabled: false });
      // An attempt in flight when it was disabled is recorded after it answers.
      await until(
        async () => (await api('GET', `/webhooks/${second.id}/deliveries`))[0]?.last_status_code === 500,
        15_000,
        'a recorded 500',
      );
      const [delivery] = await api('GET', `/webhooks/${second.id}/deliveries`);
      expect(delivery).toMatchObject({
        status: 'pending',
        last_status_code: 500,
        last_response: 'receiver says no',
      });
      failing.mode = { status: 202 };
      // Retried while its webhook is still disabled: re-enabled first, the delivery (due again within
      // this server's 300 ms schedule) could be sent by the dispatcher before the retry answered, which
      // then read it back delivered, or refused it as delivered already (409).
      const retried = await api('POST', `/webhooks/${second.id}/deliveries/${delivery.id}/retry`);
      expect(retried).toMatchObject({ id: delivery.id, status: 'pending' });
      await api('PATCH', `/webhooks/${second.id}`, { enabled: true });
      // The receiver answers 202 before the server records it: wait for the record, not the answer.
      await until(
        async () => (await api('GET', `/webhooks/${second.id}/deliveries`))[0]?.status === 'delivered',
        15_000,
        'the retried delivery recorded',
      );
      expect(failing.received.some((entry) => entry.status === 202)).toBe(true);
      const [after] = await api('GET', `/webhooks/${second.id}/deliveries`);
      expect(after).toMatchObject({ id: delivery.id, status: 'delivered', last_status_code: 202 });
      expect(failing.verified(second.secret).every((entry) => entry.id === delivery.id)).toBe(true);
    } finally {
      await failing.close();
    }
  }, 60_000);

  notAboutStorage(
    'the manual’s receiver (examples/webhook-receiver.ts, in docs/webhooks.md) takes a real delivery and refuses a forged one',
    async () => {
      const example = readFileSync(join(REPOSITORY, 'examples/webhook-receiver.ts'), 'utf8');
      expect(readFileSync(join(REPOSITORY, 'docs/webhooks.md'), 'utf8')).toContain(example.trim());
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/`;
      // Subscribed through the CLI, as the manual does, and started with the secret it printed.
      const subscribed = await addWebhook(database.address, seed, url, ['--events', 'item.upserted']);
      const receiving = spawn(
        process.execPath,
        ['--import', 'tsx', join(REPOSITORY, 'examples/webhook-receiver.ts')],
        {
          cwd: REPOSITORY,
          env: cleanEnvironment({ PORT: String(port), WEBHOOK_SECRET: subscribed.secret }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
      };
      receiving.stdout!.on('data', collect);
      receiving.stderr!.on('data', collect);
      try {
        await until(
          async () =>
            (await fetch(url, { method: 'POST', body: '{}' }).catch(() => undefined))?.status === 400,
          30_000,
          'the example to listen (and refuse an unsigned POST)',
        );
        await api('PATCH', `/dispensaries/${seed.dispensaryId}/menu/items/3`, {
          name: 'Blue Dream for the example',
        });
        await until(
          () => /^item\.upserted item 3 cursor \S+$/m.test(output),
          15_000,
          'the example to print the change',
        );
        // The example prints before it answers: the server records the delivery right after.
        await until(
          async () => (await api('GET', `/webhooks/${subscribed.id}/deliveries`))[0]?.status === 'delivered',
          15_000,
          'the delivery to be recorded',
        );
        const [delivery] = await api('GET', `/webhooks/${subscribed.id}/deliveries`);
        expect(delivery).toMatchObject({ status: 'delivered', last_status_code: 204 });
        const forged = await fetch(url, {
          method: 'POST',
          headers: {
            'webhook-id': delivery.id,
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': 'v1,Zm9yZ2Vk',
          },
          body: '{"type":"item.removed"}',
        });
        expect(forged.status).toBe(400);
        await api('DELETE', `/webhooks/${subscribed.id}`);
      } finally {
        receiving.kill();
        await waitForExit(receiving);
      }
    },
    90_000,
  );

  notAboutStorage(
    'the CLI shows webhooks and deliveries (--json, snake_case)',
    async () => {
      const listed = await cliJson<{ id: number; enabled: boolean }[]>(database.address, [
        ...KEY_ARGS,
        'webhook',
        'list',
      ]);
      expect(listed.map((entry) => entry.id)).toContain(hook.id);
      const deliveries = await cliJson<{ status: string; attempt_log: unknown[] }[]>(database.address, [
        ...KEY_ARGS,
        'webhook',
        'deliveries',
        String(hook.id),
        '--limit',
        '3',
      ]);
      expect(deliveries).toHaveLength(3);
      expect(deliveries[0]).toHaveProperty('last_status_code');
      const human = await runCli(database.address, [...KEY_ARGS, 'webhook', 'show', String(hook.id)]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain(receiver.url);
      expect(human.stdout).not.toContain(hook.secret);
    },
    60_000,
  );

  it('a retried failed delivery gets one attempt: failing again, it is failed at once and holds nothing back', async () => {
    const receiving = await startReceiver();
    const down = `http://127.0.0.1:${await freePort()}/hooks`;
    const given = await createWebhook(database.address, seed, down, ['store.updated']);
    const deliveryOf = async (id: string) =>
      (await api('GET', `/webhooks/${given.id}/deliveries`)).find((each: { id: string }) => each.id === id);
    try {
      await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: 'Given up' });
      await until(
        async () => (await api('GET', `/webhooks/${given.id}/deliveries`))[0]?.status === 'failed',
        30_000,
        'the delivery to be given up',
      );
      const [failed] = await api('GET', `/webhooks/${given.id}/deliveries`);
      // Retried while the endpoint is still down: one attempt, then failed again, not the whole schedule.
      expect((await api('POST', `/webhooks/${given.id}/deliveries/${failed.id}/retry`)).status).toBe(
        'pending',
      );
      await until(
        async () => (await deliveryOf(failed.id)).attempts > failed.attempts,
        15_000,
        'the retried attempt',
      );
      expect(await deliveryOf(failed.id)).toMatchObject({
        status: 'failed',
        attempts: failed.attempts + 1,
        next_attempt_at: null,
      });
      // A newer change goes at once, now that the receiver is there: nothing waits behind the failed one.
      await api('PATCH', `/webhooks/${given.id}`, { url: receiving.url });
      await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: 'After' });
      await until(() => receiving.received.length === 1, 15_000, 'the newer change');
      // Retried once the receiver is back, it arrives after the newer change, with its own webhook-id
      // and its older cursor (docs/webhooks.md says so).
      await api('POST', `/webhooks/${given.id}/deliveries/${failed.id}/retry`);
      await until(() => receiving.received.length === 2, 15_000, 'the retried delivery');
      const [newer, older] = receiving.verified(given.secret);
      expect(older!.id).toBe(failed.id);
      expect(older!.payload.cursor < newer!.payload.cursor).toBe(true);
      expect(newer!.payload.data.item).toBeNull();
    } finally {
      await receiving.close();
    }
  }, 90_000);
});

describe(`retrying a delivered delivery over ${DATABASE_KIND}, with the default retry schedule`, () => {
  let database: TestDatabase;
  let seed: Seed;
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let hook: { id: number; secret: string };
  let key: string;
  let api: ReturnType<typeof syncApi>;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    receiver = await startReceiver();
    hook = await createWebhook(database.address, seed, receiver.url, ['store.updated']);
    // The default schedule: a failed second attempt would wait about 5 minutes.
    ({ server, key, api } = await serveWebhooks(database.address, ['--webhook-allow-private']));
  }, 120_000);
  afterAll(() => stopAll(server, [receiver], database), 60_000);

  it('is refused with 409 and its record kept; a newer change is not held behind it', async () => {
    const latest = async () => (await api('GET', `/webhooks/${hook.id}/deliveries`))[0];
    await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: 'Change A' });
    await until(async () => (await latest())?.status === 'delivered', 15_000, 'change A delivered');
    const before = await latest();
    // The receiver goes away (the webhook points at a closed port), and the operator retries A.
    await api('PATCH', `/webhooks/${hook.id}`, { url: `http://127.0.0.1:${await freePort()}/hooks` });
    const retry = await fetch(`${server.url}/admin/v1/webhooks/${hook.id}/deliveries/${before.id}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    const answer = (await retry.json()) as { error?: { code: string; message: string } };
    // Whatever the retry did has happened once A is delivered again or has had another attempt.
    await until(
      async () => {
        const now = (await api('GET', `/webhooks/${hook.id}/deliveries`)).find(
          (each: { id: string }) => each.id === before.id,
        );
        return now.status === 'delivered' || now.attempts > before.attempts;
      },
      15_000,
      'the retry to take effect',
    );
    // The receiver is back; change B goes at once, not after a retry of A minutes away.
    await api('PATCH', `/webhooks/${hook.id}`, { url: receiver.url });
    await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: 'Change B' });
    await until(() => receiver.received.length >= 2, 15_000, 'change B delivered');
    const payloads = receiver.verified(hook.secret).map((entry) => entry.payload.data.cursor);
    expect(payloads).toEqual([before.cursor, expect.any(String)]);
    expect(payloads[1]! > before.cursor).toBe(true);

    expect(retry.status).toBe(409);
    expect(answer.error?.code).toBe('conflict');
    expect(answer.error?.message).toBe(
      `Delivery ${before.id} was delivered at ${before.delivered_at} (answered 204), so it is not sent again: its record stays as it happened, and a change sent again now would arrive after newer ones. If the receiver lost it, it reads the change again from GET /changes (cursor ${before.cursor}) or reads the menu again.`,
    );
    const after = (await api('GET', `/webhooks/${hook.id}/deliveries`)).find(
      (each: { id: string }) => each.id === before.id,
    );
    expect(after).toEqual(before);

    // The CLI calls the same service, and says the same.
    const cli = await runCli(database.address, [...KEY_ARGS, 'webhook', 'retry', String(hook.id), before.id]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(`error: ${answer.error?.message}\n`);
  }, 60_000);
});

describe(`webhooks that fail, and targets that are refused, over ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let seed: Seed;
  let server: ServerProcess;
  let api: ReturnType<typeof syncApi>;
  let failing: WebhookReceiver;
  let refused: WebhookReceiver;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    failing = await startReceiver({ status: 500 });
    refused = await startReceiver();
    // Without --webhook-allow-private: loopback targets are refused when connecting.
    ({ server, api } = await serveWebhooks(database.address, [
      '--webhook-retry-schedule',
      '50ms,50ms',
      '--webhook-disable-after',
      '1s',
      '--ops-port',
      '0',
    ]));
  }, 120_000);
  afterAll(() => stopAll(server, [failing, refused], database), 60_000);

  it('after the schedule a delivery is failed; an endpoint failing for the set time is disabled, audited, counted', async () => {
    // Subscribed with private addresses allowed (http://); the server was not started with
    // --webhook-allow-private, so this one is refused on every attempt, which is what the test needs:
    // an endpoint that always fails.
    const hook = await createWebhook(database.address, seed, failing.url);
    for (const city of ['A', 'B', 'C', 'D']) {
      await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city });
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    await until(
      async () => (await api('GET', `/webhooks/${hook.id}`)).enabled === false,
      15_000,
      'the failing webhook to be disabled',
    );
    const webhook = await api('GET', `/webhooks/${hook.id}`);
    expect(webhook.disabled_reason).toMatch(/^every delivery failed since /);
    const deliveries = await api('GET', `/webhooks/${hook.id}/deliveries`);
    const failed = deliveries.filter((delivery: { status: string }) => delivery.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]).toMatchObject({ attempts: 3, next_attempt_at: null, last_status_code: null });
    expect(failed[0].last_error).toContain('https://');
    expect(failing.received).toEqual([]);
    const audit = await cliJson<{ action: string; actor: string }[]>(database.address, ['audit']);
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'webhook.disable', actor: 'webhook-dispatcher' }),
    );
    const ops = /"ops_url": "(http:\/\/[^"]+)"/.exec(server.output())![1]!;
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    expect(metrics).toMatch(/^menu_api_webhooks_disabled_total 1$/m);
    expect(metrics).toMatch(/^menu_api_webhook_attempts_total\{outcome="failed"\} [1-9]/m);
  }, 60_000);

  notAboutStorage(
    'a name that resolves to loopback is refused when connecting: the receiver gets nothing',
    async () => {
      const port = new URL(refused.url).port;
      const hook = await addWebhook(database.address, seed, `https://localhost:${port}/hooks`, [], {
        allowPrivate: false,
      });
      await api('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: 'Refused' });
      await until(
        async () => (await api('GET', `/webhooks/${hook.id}/deliveries`))[0]?.last_error != null,
        15_000,
        'an attempt',
      );
      const [delivery] = await api('GET', `/webhooks/${hook.id}/deliveries`);
      expect(delivery.last_error).toMatch(
        /^localhost resolves to (127\.0\.0\.1|::1), which webhooks may not reach$/,
      );
      expect(refused.received).toEqual([]);
    },
    60_000,
  );

  it('without WEBHOOK_KEY: SQLite makes a 0600 key file and says so; PostgreSQL refuses with what to do', async () => {
    const fresh = await testDatabase();
    try {
      const freshSeed = await seedDatabase(fresh.address);
      const result = await runCli(fresh.address, [
        'webhook',
        'add',
        '--credential',
        freshSeed.username,
        '--dispensary',
        String(freshSeed.dispensaryId),
        '--url',
        'https://hooks.example.com/menu',
      ]);
      if (onPostgres) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain('Webhooks on PostgreSQL need WEBHOOK_KEY (or --webhook-key)');
        expect(result.stderr).toContain('openssl rand -base64 32');
      } else {
        expect(result.code, result.stderr).toBe(0);
        const file = `${fresh.address}.webhook-key`;
        expect(result.stderr).toContain(`Created ${file}`);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(result.stdout).toMatch(/^Signing secret \(shown once, .*\): whsec_/m);
      }
    } finally {
      await fresh.cleanup();
    }
  }, 60_000);
});
