import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { formBHeaders } from '../helpers/http.js';
import { send, waitForExit } from '../helpers/process.js';
import type { Seed } from '../helpers/runtime.js';
import { createAdminKey, createWebhook, seedDatabase } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';
import { KEY_ARGS, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

assertBuilt();

const SERVE_ARGS = [...KEY_ARGS, '--webhook-allow-private', '--webhook-timeout-ms', '1000'];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The stock levels of item 3 (100 and up) a text holds, in order. */
const stocksIn = (text: string) => [...text.matchAll(/"stock":(\d{3})\b/g)].map((match) => Number(match[1]));

/**
 * `kill -9` of the server twice while a writer changes stock without pause, a reader follows the
 * change feed (/changes, resuming from its last cursor) and a webhook receives every change: every
 * change whose write was answered 200 is in the feed, once, in the order written, and reached the
 * webhook at least once.
 */
describe(`kill -9 during a stream of changes (${DATABASE_KIND})`, () => {
  let database: TestDatabase;
  let seed: Seed;
  let key: string;
  let receiver: WebhookReceiver;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    key = await createAdminKey(database.address);
    receiver = await startReceiver({ status: 204, delayMs: 20 });
    await createWebhook(database.address, seed, receiver.url);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await database?.cleanup();
  });

  it('loses no acknowledged change from the feed or the webhook', { timeout: 120_000 }, async () => {
    server = await startServe(database.address, SERVE_ARGS);
    const acknowledged: number[] = [];
    let running = true;
    let next = 100;
    const writer = async () => {
      while (running && next < 1_000) {
        const stock = next++;
        const answer = await send(`${server!.url}/admin/v1/dispensaries/${seed.dispensaryId}/inventory`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify([{ item_id: 3, unit: 'gram', amount: 1, stock }]),
          timeoutMs: 10_000,
        }).catch(() => undefined);
        // No answer (the server died): the change may or may not be there; not counted either way.
        if (answer?.status === 200) acknowledged.push(stock);
        else await pause(100);
      }
    };
    const feed: { cursor: string; stocks: number[] }[] = [];
    let cursor: string | undefined;
    let caughtUp = false;
    let writesDone = false;
    const reader = async () => {
      while (!caughtUp) {
        // Caught up only on a page asked for after the last write was answered.
        const afterLastWrite = writesDone;
        const query = cursor ? `?after=${cursor}&limit=1000` : '?limit=1000';
        const answer = await send(`${server!.url}/changes${query}`, {
          headers: formBHeaders(seed),
          timeoutMs: 10_000,
        }).catch(() => undefined);
        if (answer?.status !== 200) {
          await pause(100);
          continue;
        }
        const page = JSON.parse(answer.body) as {
          changes: { cursor: string }[];
          next_cursor: string;
          has_more: boolean;
        };
        for (const change of page.changes)
          feed.push({ cursor: change.cursor, stocks: stocksIn(JSON.stringify(change)) });
        if (page.next_cursor) cursor = page.next_cursor;
        caughtUp = afterLastWrite && !page.has_more;
        if (!page.has_more) await pause(50);
      }
    };
    const writing = writer().then(() => {
      writesDone = true;
    });
    const clients = [writing, reader()];
    try {
      for (let kill = 0; kill < 2; kill++) {
        const before = acknowledged.length;
        await until(() => acknowledged.length >= before + 15, 30_000, 'writes before the kill');
        server.child.kill('SIGKILL');
        await waitForExit(server.child);
        server = await startServe(database.address, SERVE_ARGS);
      }
      const before = acknowledged.length;
      await until(() => acknowledged.length >= before + 10, 30_000, 'writes after the last restart');
    } finally {
      running = false;
      await Promise.all(clients);
    }

    // The feed: each change once (cursors increase), every acknowledged stock level, in write order.
    const cursors = feed.map((entry) => entry.cursor);
    expect([...cursors].sort()).toEqual(cursors);
    expect(new Set(cursors).size).toBe(cursors.length);
    const inFeed = feed.flatMap((entry) => entry.stocks);
    const missing = acknowledged.filter((stock) => !inFeed.includes(stock));
    expect(missing).toEqual([]);
    const order = acknowledged.map((stock) => inFeed.indexOf(stock));
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    // The webhook: every acknowledged change at least once (after the restarts, by the next process).
    const delivered = () => new Set(receiver.received.flatMap((entry) => stocksIn(entry.body)));
    await until(
      () => acknowledged.every((stock) => delivered().has(stock)),
      60_000,
      'every acknowledged change delivered to the webhook',
    );
  });
});
