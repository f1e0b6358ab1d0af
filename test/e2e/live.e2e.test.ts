import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { generateMenu } from '../helpers/admin.js';
import { assertBuilt, commandJson, runCli, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, onPostgres, type TestDatabase, testDatabase } from '../helpers/database.js';
import { type EventStreamClient, openEvents } from '../helpers/events.js';
import { continueFeedAt } from '../helpers/feed-sequence.js';
import { waitForExit } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import type { FeedChange as Change } from '../helpers/webhook-receiver.js';

assertBuilt();

interface ChangesPage {
  changes: Change[];
  next_cursor: string;
  has_more: boolean;
}

interface Credentials {
  username: string;
  password: string;
  token: string;
}

const summary = (change: Change) => [change.type, change.item_id, change.reason];

/** Waits until the server answers /readyz with 200 (which also re-reads its change feed). */
async function ready(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${server.url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${server.url} was not ready within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resolves when the stream ends; rejects if it is still open after `ms` (a bound, not a measurement). */
async function endsWithin(stream: EventStreamClient, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the stream was still open after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([stream.ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

// On PostgreSQL the servers poll only once a minute: what the second server streams within seconds of
// a write through the first came by LISTEN/NOTIFY. On SQLite the periodic poll (250 ms) carries it.
const pollArgs = onPostgres ? ['--change-poll-ms', '60000'] : [];

/**
 * The live feed over real HTTP, between real processes: a point of sale writes through the sync API of
 * one server (and the operator through the CLI), an integrator follows /changes and /events on both
 * servers, in both forms.
 */
describe(`live menus: /changes and /events over ${DATABASE_KIND}, two server processes`, {
  timeout: 120_000,
}, () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;
  let dispensary: { id: number; token: string };
  let integrator: Credentials;
  let adminKey: string;

  beforeAll(async () => {
    database = await testDatabase();
    const db = database.address;
    dispensary = await commandJson(db, ['dispensary', 'create', '--name', 'Live Collective']);
    const credential = await commandJson<{ username: string; password: string }>(db, [
      'credential',
      'issue',
      '--username',
      'live-app',
    ]);
    integrator = { ...credential, token: dispensary.token };
    adminKey = (
      await commandJson<{ key: string }>(db, ['admin-key', 'create', '--scope', 'all', '--name', 'pos'])
    ).key;
    const common = [...pollArgs, '--stream-heartbeat-ms', '300', '--max-streams-per-credential', '3'];
    [first, second] = await Promise.all([
      startServe(db, [...common, '--shutdown-timeout-ms', '60000']),
      startServe(db, common),
    ]);
    await Promise.all([ready(first), ready(second)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.cleanup();
  });

  const pos = async (method: string, path: string, body?: unknown, retried = false): Promise<void> => {
    const response = await fetch(`${first.url}/admin/v1/dispensaries/${dispensary.id}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 503 && !retried) {
      // The database was out of reach for a moment (a busy machine): wait until ready, as a POS would.
      await ready(first);
      return pos(method, path, body, true);
    }
    expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
  };
  const cli = (args: string[]) => commandJson(database.address, args);
  const formBHeaders = (who: Credentials = integrator) => ({
    store: who.token,
    username: who.username,
    password: who.password,
  });
  const formABody = (who: Credentials = integrator) => ({
    username: who.username,
    password: who.password,
    collective_token: who.token,
  });
  const formA = (server: ServerProcess, path: string, extra: Record<string, unknown> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...formABody(), ...extra }),
    });
  const formB = (server: ServerProcess, path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { ...formBHeaders(), ...headers } });
  /** Every stream a test opens, closed after it whatever happened. */
  const opened: EventStreamClient[] = [];
  afterEach(() => {
    for (const stream of opened.splice(0)) stream.close();
  });
  const kept = async (stream: Promise<EventStreamClient>) => {
    const client = await stream;
    opened.push(client);
    return client;
  };
  const eventsA = (server: ServerProcess, extra: Record<string, unknown> = {}, who?: Credentials) =>
    kept(
      openEvents(`${server.url}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...formABody(who), ...extra }),
      }),
    );
  const eventsB = (
    server: ServerProcess,
    query = '',
    headers: Record<string, string> = {},
    who?: Credentials,
  ) => kept(openEvents(`${server.url}/events${query}`, { headers: { ...formBHeaders(who), ...headers } }));
  const menuCursor = async (server: ServerProcess = first) => {
    const response = await formB(server, '/menu');
    expect(response.status).toBe(200);
    return response.headers.get('menu-cursor')!;
  };
  const stock = (itemId: number, level: number) =>
    pos('PATCH', '/inventory', [{ item_id: itemId, unit: 'gram', amount: 1, stock: level }]);

  it('every kind of change reaches /changes and /events in both forms, on the server written to and the other', async () => {
    const menu = generateMenu(3, 'live');
    await pos('PUT', '/menu', menu);
    const start = await menuCursor(first);
    expect(start).toMatch(/^[0-9]{16}$/);
    // Every read carries the cursor its content is at: the same on both servers, in both forms.
    expect((await formA(second, '/menu')).headers.get('menu-cursor')).toBe(start);
    expect((await formB(second, '/store')).headers.get('menu-cursor')).toBe(start);
    expect((await formB(first, '/inventory?since=2020-01-01T00:00:00Z')).headers.get('menu-cursor')).toBe(
      start,
    );

    const streamA = await eventsA(first, { after: start });
    const streamB = await eventsB(second, '', { 'last-event-id': start });
    expect(streamA.status).toBe(200);
    expect(streamB.headers['content-type']).toBe('text/event-stream; charset=utf-8');

    // Stock: item 1 changes; item 2 is set to the level it has (no change).
    await pos('PATCH', '/inventory', [
      { item_id: 1, unit: 'gram', amount: 1, stock: 99 },
      { item_id: 2, unit: 'gram', amount: 1, stock: menu[1]!.prices[0]!.stock },
    ]);
    await pos('PATCH', '/menu/items/2', { active: false });
    await pos('PATCH', '/menu/items/2', { active: true });
    await pos('DELETE', '/menu/items/3');
    await pos('PATCH', '/menu/items', [{ ...menu[0]!, id: 4, name: 'live-new' }]);
    await pos('PATCH', '', { city: 'Oakland' });
    // A full sync: item 1 renamed (its stock as set), item 2 unchanged, item 4 dropped.
    await pos('PUT', '/menu', [
      {
        ...menu[0]!,
        name: 'live-renamed',
        prices: [{ ...menu[0]!.prices[0]!, stock: 99 }, menu[0]!.prices[1]!],
      },
      menu[1]!,
    ]);
    // The operator, through the CLI (run in the test process: a third process beside the two servers).
    await cli(['menu', 'set-active', '--dispensary', String(dispensary.id), '--item', '2', 'false']);

    const expected = [
      ['item.upserted', 1, null],
      ['item.removed', 2, 'deactivated'],
      ['item.upserted', 2, null],
      ['item.removed', 3, 'deleted'],
      ['item.upserted', 4, null],
      ['store.updated', null, null],
      ['item.upserted', 1, null],
      ['item.removed', 4, 'deleted'],
      ['item.removed', 2, 'deactivated'],
    ];
    await Promise.all([streamA.waitForEvents(expected.length), streamB.waitForEvents(expected.length)]);
    for (const stream of [streamA, streamB]) {
      const changes = stream.changes<Change>();
      expect(changes.map(summary)).toEqual(expected);
      expect(stream.events.map((event) => event.event)).toEqual(expected.map(([type]) => type));
      expect(stream.events.map((event) => event.id)).toEqual(changes.map((change) => change.cursor));
      const cursors = changes.map((change) => change.cursor);
      expect([...cursors].sort()).toEqual(cursors);
      expect(cursors[0]! > start).toBe(true);
      for (const change of changes) {
        if (change.type !== 'item.upserted') expect(change.item).toBeNull();
        expect(Date.parse(change.at)).not.toBeNaN();
      }
    }
    // Heartbeats keep an idle stream alive: one within a few heartbeat periods (300 ms) of quiet,
    // however fast the writes above came one after the other.
    await streamA.waitForComment('keep-alive', 3_000);

    // /changes lists the same, in both forms, on both servers.
    for (const server of [first, second]) {
      const a = (await (await formA(server, '/changes', { after: start })).json()) as ChangesPage;
      const b = (await (await formB(server, `/changes?after=${start}`)).json()) as ChangesPage;
      expect(a.changes.map(summary)).toEqual(expected);
      expect(b.changes).toEqual(streamB.changes<Change>());
      expect(a.changes).toEqual(streamA.changes<Change>());
      expect(b.has_more).toBe(false);
      expect(b.next_cursor).toBe(b.changes.at(-1)!.cursor);
    }
    // Each form's item is exactly what its /menu lists.
    const menuA = (await (await formA(first, '/menu')).json()) as { id: number }[];
    const menuB = (await (await formB(second, '/menu')).json()) as { id: number }[];
    const lastUpsert = (stream: EventStreamClient, id: number) =>
      stream.changes<Change>().findLast((change) => change.item_id === id && change.type === 'item.upserted')!
        .item;
    expect(lastUpsert(streamA, 1)).toEqual(menuA.find((item) => item.id === 1));
    expect(lastUpsert(streamB, 1)).toEqual(menuB.find((item) => item.id === 1));
    expect(lastUpsert(streamA, 1)).toMatchObject({ name: 'live-renamed', active: true });
    expect(lastUpsert(streamB, 1)).not.toHaveProperty('active');

    // Paging: limit, has_more, next_cursor; the first page of a feed that has more.
    const page = (await (await formB(first, `/changes?after=${start}&limit=2`)).json()) as ChangesPage;
    expect(page.changes.map(summary)).toEqual(expected.slice(0, 2));
    expect(page).toMatchObject({ has_more: true, next_cursor: page.changes[1]!.cursor });
    const rest = (await (
      await formA(first, '/changes', { after: page.next_cursor, limit: 1000 })
    ).json()) as ChangesPage;
    expect(rest.changes.map(summary)).toEqual(expected.slice(2));
    // The feed from its start (no `after`): the first full sync comes first.
    const all = (await (await formB(first, '/changes')).json()) as ChangesPage;
    expect(all.changes.slice(0, 3).map(summary)).toEqual([
      ['item.upserted', 1, null],
      ['item.upserted', 2, null],
      ['item.upserted', 3, null],
    ]);
    streamA.close();
    streamB.close();
  });

  it('a resumed stream gets what it missed, then what is new, each once', async () => {
    const start = await menuCursor();
    const before = await eventsB(first, `?after=${start}`);
    await stock(1, 1);
    await stock(1, 2);
    await before.waitForEvents(2);
    before.close();
    await stock(1, 3);
    await stock(1, 5);
    await stock(1, 4);
    const again = await eventsB(second, '', { 'last-event-id': before.events.at(-1)!.id! });
    await again.waitForEvents(3);
    await stock(1, 6);
    await again.waitForEvents(4);
    const seen = [...before.events, ...again.events].map((event) => event.id);
    const listed = ((await (await formB(first, `/changes?after=${start}`)).json()) as ChangesPage).changes;
    expect(seen).toEqual(listed.map((change) => change.cursor));
    expect(listed.map(summary)).toEqual(Array.from({ length: 6 }, () => ['item.upserted', 1, null]));
    expect(
      again
        .changes<Change>()
        .map((change) => (change.item as { variants: { stock: number }[] }).variants[0]!.stock),
    ).toEqual([3, 5, 4, 6]);
    again.close();
  });

  it('a stream ends when its credential is revoked, its token stops working, or its dispensary is removed', async () => {
    const doomed = (await cli(['credential', 'issue', '--username', 'doomed'])) as {
      username: string;
      password: string;
    };
    const other = (await cli(['dispensary', 'create', '--name', 'Short Lived'])) as {
      id: number;
      token: string;
    };
    const rotated = (await cli(['dispensary', 'create', '--name', 'Rotated'])) as {
      id: number;
      token: string;
    };
    const revokedStream = await eventsB(second, '', {}, { ...doomed, token: dispensary.token });
    const removedStream = await eventsA(first, {}, { ...integrator, token: other.token });
    const rotatedStream = await eventsB(first, '', {}, { ...integrator, token: rotated.token });
    for (const stream of [revokedStream, removedStream, rotatedStream]) expect(stream.status).toBe(200);

    await cli(['credential', 'revoke', 'doomed']);
    await endsWithin(revokedStream, 10_000, 'revoked credential');
    expect(revokedStream.comments).toContain('stream ended (revoked)');

    expect(
      (await runCli(database.address, ['dispensary', 'remove', String(other.id), '--yes', '--json'])).code,
    ).toBe(0);
    await endsWithin(removedStream, 10_000, 'removed dispensary');
    expect(removedStream.comments).toContain('stream ended (removed)');

    // Rotated with a one-second grace period: the old token's stream ends when the grace does.
    await cli(['dispensary', 'rotate-token', String(rotated.id), '--grace-seconds', '1']);
    await endsWithin(rotatedStream, 10_000, 'rotated token');
    expect(rotatedStream.comments).toContain('stream ended (token)');
    // And a stream with a revoked credential cannot be reopened.
    const refused = await eventsB(second, '', {}, { ...doomed, token: dispensary.token });
    expect(refused.status).toBe(401);
  });

  it('limits streams per credential with 429, counted in /metrics', async () => {
    const open = await Promise.all([eventsB(first), eventsA(first), eventsB(first)]);
    for (const stream of open) expect(stream.status).toBe(200);
    const refused = await eventsB(first);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'rate_limited' } });
    const metrics = await (await fetch(`${first.url}/metrics`)).text();
    expect(metrics).toMatch(/^menu_api_live_streams_refused_total\{limit="credential"\} [1-9]/m);
    expect(metrics).toMatch(/^menu_api_live_streams [3-9]/m);
    for (const stream of open) stream.close();
    // Closing frees the places again.
    const deadline = Date.now() + 10_000;
    let reopened = await eventsB(first);
    while (reopened.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reopened = await eventsB(first);
    }
    expect(reopened.status).toBe(200);
    reopened.close();
  });

  it('an expired cursor gets 410 cursor_expired; a malformed one 400', async () => {
    const old = await menuCursor();
    await stock(1, 10);
    await stock(1, 11);
    // Retention passes: everything older than now is pruned (the newest change is always kept).
    const store = await openStore(database.address);
    try {
      expect(await store.menuChanges.prune(new Date(Date.now() + 60_000).toISOString())).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    const expiredB = await formB(first, `/changes?after=${old}`);
    expect(expiredB.status).toBe(410);
    const body = (await expiredB.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('cursor_expired');
    expect(body.error.message).toMatch(/Read the whole menu again/);
    expect((await formA(second, '/changes', { after: old })).status).toBe(410);
    const expiredStream = await eventsB(first, '', { 'last-event-id': old });
    expect(expiredStream.status).toBe(410);
    // The menu's cursor works again, and so does no cursor (from the oldest kept).
    expect((await formB(first, `/changes?after=${await menuCursor()}`)).status).toBe(200);
    expect((await formB(first, '/changes')).status).toBe(200);

    for (const bad of ['abc', '12', '00000000000000001', '-000000000000001']) {
      const response = await formB(first, `/changes?after=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
    }
    expect((await formA(first, '/changes', { after: 'x' })).status).toBe(400);
    expect((await formB(first, '/changes?limit=0')).status).toBe(400);
    expect((await formB(first, '/changes?limit=1001')).status).toBe(400);
    expect((await formA(first, '/changes', { limit: 1001 })).status).toBe(400);
    expect((await eventsB(first, '', { 'last-event-id': 'nope' })).status).toBe(400);
  });

  it('a cursor ahead of the whole feed gets 410 in both forms, on /changes and before any stream; cursors are exact to the last', async () => {
    await stock(1, 20);
    const ours = await menuCursor();
    // Another dispensary's change, after ours: the feed's head is the whole feed's, not this dispensary's.
    const neighbour = await cli(['dispensary', 'create', '--name', 'Neighbour']);
    await cli(['dispensary', 'update', String((neighbour as { id: number }).id), '--city', 'Elsewhere']);
    const { next_cursor: head } = (await (
      await formB(second, `/changes?after=${ours}`)
    ).json()) as ChangesPage;
    expect(head > ours).toBe(true);
    expect((await formA(first, '/changes', { after: head })).status).toBe(200);
    const ahead = String(Number(head) + 1).padStart(16, '0');
    const refusals = [
      await formB(first, `/changes?after=${ahead}`),
      await formA(second, '/changes', { after: ahead }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(410);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('cursor_expired');
      expect(error.message).toContain('ahead of the feed');
    }
    for (const stream of [
      await eventsB(second, '', { 'last-event-id': ahead }),
      await eventsA(first, { after: ahead }),
    ]) {
      expect(stream.status).toBe(410);
      expect(stream.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(stream.body)).toMatchObject({ error: { code: 'cursor_expired' } });
    }

    // At the end of the cursors' range (2^53 - 1), each comes back as it was given out.
    const last = Number.MAX_SAFE_INTEGER;
    await continueFeedAt(database.address, last - 1);
    const stream = await eventsB(second, '', { 'last-event-id': head });
    await stock(1, 21);
    const [event] = await stream.waitForEvents(1);
    expect(event!.id).toBe('9007199254740991');
    // The other server's menu catches up with the change (its cache hears of it as its stream did).
    await until(
      async () => (await menuCursor(second)) === '9007199254740991',
      10_000,
      'Menu-Cursor at the last',
    );
    const page = (await (await formA(first, '/changes', { after: head })).json()) as ChangesPage;
    expect(page.changes.map((change) => change.cursor)).toEqual(['9007199254740991']);
    expect(page.next_cursor).toBe('9007199254740991');
    for (const past of ['9007199254740992', '9999999999999999']) {
      expect((await formB(second, `/changes?after=${past}`)).status).toBe(410);
    }
  });

  it('closing the server ends its streams at once, so the shutdown never waits for them', async () => {
    const stream = await eventsB(first);
    expect(stream.status).toBe(200);
    first.child.kill('SIGTERM');
    // The server's shutdown deadline is 60 s: exiting well before it means no stream held it up.
    await waitForExit(first.child, 20_000);
    await endsWithin(stream, 1_000, 'shutdown');
    expect(stream.comments).toContain('stream ended (shutdown)');
    expect(first.output()).not.toMatch(/cut off/);
  });
});
