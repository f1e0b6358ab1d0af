import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeFeed, RETRY_AFTER_FAILURE_MS } from '../../src/services/change-feed.js';
import type { Services } from '../../src/services/index.js';
import type { KyselyStore } from '../../src/store/create.js';
import { openKyselyStore } from '../../src/store/open.js';
import { type TestDatabase, testDatabase } from '../helpers/database.js';
import { formABody, formBHeaders } from '../helpers/http.js';
import { SAMPLE_MENU, servicesOver, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** How long a write by another process may take to show (the issue: within one second). */
const DEADLINE_MS = 1_000;

/**
 * Calls `probe` until `accept` holds for its answer, and returns that answer; fails with the last answer
 * once the deadline passes.
 */
async function within<T>(probe: () => Promise<T>, accept: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const answer = await probe();
    if (accept(answer)) return answer;
    if (Date.now() > deadline) {
      throw new Error(`not seen within ${DEADLINE_MS} ms; last answer: ${JSON.stringify(answer)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('change feed: writes by another process reach a running server within one second', () => {
  let runtime: TestRuntime;
  /** The services of another process (the CLI) over the same database file. */
  let other: Services;

  beforeEach(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    other = await servicesOver(runtime.database);
  });
  afterEach(async () => {
    await other.store.close();
    await runtime.close();
  });

  /** The status and JSON body of the answer to `request`. */
  const answerTo = async (request: InjectOptions) => {
    const response = await runtime.app.inject(request);
    return { status: response.statusCode, body: response.json() };
  };
  const formA = (overrides: Record<string, unknown> = {}) =>
    answerTo({ method: 'POST', url: '/menu', payload: { ...formABody(runtime.seed), ...overrides } });
  const formB = (headers: Record<string, string> = {}) =>
    answerTo({ method: 'GET', url: '/menu', headers: { ...formBHeaders(runtime.seed), ...headers } });
  const ids = (answer: { body: { id: number }[] }) => answer.body.map((item) => item.id);

  it('a replaced menu', async () => {
    // Served once first, so that the server holds the menu in memory.
    expect(ids(await formA())).toEqual([1, 3, 7]);
    expect(ids(await formB())).toEqual([1, 3, 7]);
    const { menus } = other;
    await menus.replace(
      runtime.seed.dispensaryId,
      menus.validate([{ id: 50, name: 'Fresh Drop', product_type: 'Preroll', prices: [] }]),
    );
    const a = await within(formA, (answer) => ids(answer).join() === '50');
    expect(a.body[0]).toMatchObject({ name: 'Fresh Drop', product_type: 'Preroll' });
    await within(formB, (answer) => ids(answer).join() === '50');
  });

  it('an item set inactive, then active again', async () => {
    expect(ids(await formA())).toEqual([1, 3, 7]);
    await other.menus.setActive(runtime.seed.dispensaryId, 3, false);
    await within(formA, (answer) => ids(answer).join() === '1,7');
    await within(formB, (answer) => ids(answer).join() === '1,7');
    const all = await formA({ active: false });
    expect(all.body.find((item: { id: number }) => item.id === 3)).toMatchObject({ active: false });
    await other.menus.setActive(runtime.seed.dispensaryId, 2, true);
    await within(formA, (answer) => ids(answer).join() === '1,2,7');
  });

  it('a revoked credential, even one the server remembered', async () => {
    expect((await formA()).status).toBe(200);
    expect((await formB()).status).toBe(200);
    await other.credentials.revoke(runtime.seed.username);
    const a = await within(formA, (answer) => answer.status === 401);
    expect(a.body.error.code).toBeTruthy();
    await within(formB, (answer) => answer.status === 401);
  });

  it('revoking one credential leaves the others working', async () => {
    const second = await runtime.services.credentials.issue('second-integrator');
    const asSecond = { username: second.username, password: second.password };
    expect((await formA()).status).toBe(200);
    expect((await formA(asSecond)).status).toBe(200);
    await other.credentials.revoke(runtime.seed.username);
    await within(formA, (answer) => answer.status === 401);
    expect((await formA(asSecond)).status).toBe(200);
  });

  it('a rotated token: the old one is refused, the new one works', async () => {
    expect((await formA()).status).toBe(200);
    expect((await formB()).status).toBe(200);
    const { token } = await other.dispensaries.rotateToken(runtime.seed.dispensaryId, undefined, 0);
    await within(formA, (answer) => answer.status === 403);
    await within(formB, (answer) => answer.status === 403);
    expect(ids(await formA({ collective_token: token }))).toEqual([1, 3, 7]);
    expect(ids(await formB({ store: token }))).toEqual([1, 3, 7]);
  });

  it('a removed dispensary', async () => {
    expect((await formA()).status).toBe(200);
    await other.dispensaries.remove(runtime.seed.dispensaryId);
    await within(formA, (answer) => answer.status === 403);
  });

  it('a credential and a dispensary created by another process work at once, even after a refusal', async () => {
    const asNewcomer = { username: 'newcomer', password: 'chosen-password-0123456789' };
    // Refused first: an unknown username and password must not be remembered as bad.
    expect((await formA(asNewcomer)).status).toBe(401);
    await other.credentials.issueWithPassword(asNewcomer.username, asNewcomer.password);
    await within(
      () => formA(asNewcomer),
      (reply) => reply.status === 200,
    );
    const dispensary = await other.dispensaries.create('Newcomer');
    const answer = await within(
      () => formA({ ...asNewcomer, collective_token: dispensary.token }),
      (reply) => reply.status === 200,
    );
    expect(answer.body).toEqual([]);
  });
});

describe('change feed: after a failed read', () => {
  let database: TestDatabase;
  let store: KyselyStore;
  let feed: ChangeFeed;
  let reported: string[];

  beforeEach(async () => {
    database = await testDatabase();
    store = await openKyselyStore(database.address);
    reported = [];
    // A poll a minute apart, as an operator may set it where LISTEN/NOTIFY carries the changes.
    feed = new ChangeFeed(store, 60_000, {
      failed: () => reported.push('failed'),
      recovered: () => reported.push('recovered'),
    });
    await feed.start();
  });
  afterEach(async () => {
    feed.stop();
    await store.close();
    await database.cleanup();
  });

  it('reads again within a second by itself, so the server does not refuse until the next poll', async () => {
    // The feed's table goes away for a moment (as a database that does not answer would).
    await sql`alter table changes rename to changes_away`.execute(store.database);
    await expect(feed.poll()).rejects.toThrow();
    expect(feed.reachable).toBe(false);
    await sql`alter table changes_away rename to changes`.execute(store.database);
    const deadline = Date.now() + RETRY_AFTER_FAILURE_MS + 2_000;
    while (!feed.reachable && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(feed.reachable).toBe(true);
  });

  it('reports the read that starts a run of failures and the one that ends it, not each retry', async () => {
    await sql`alter table changes rename to changes_away`.execute(store.database);
    await expect(feed.poll()).rejects.toThrow();
    await expect(feed.poll()).rejects.toThrow();
    expect(reported).toEqual(['failed']);
    await sql`alter table changes_away rename to changes`.execute(store.database);
    await feed.poll();
    await feed.poll();
    expect(reported).toEqual(['failed', 'recovered']);
  });
});
