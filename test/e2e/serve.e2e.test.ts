import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/demo/seed.js';
import { assertBuilt, cliJson, type ServerProcess, spawnCli, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, onPostgres, type TestDatabase, testDatabase } from '../helpers/database.js';
import { BLUE_DREAM_FORM_A, SAMPLE_MENU, temporaryDirectory } from '../helpers/runtime.js';

assertBuilt();

/** What the running server must show within this long after the CLI process that changed it exits. */
const DEADLINE_MS = 1_000;

/** Each CLI call and server start is a Node start: seconds each when the suite shares two cores. */
const SLOW = { timeout: 90_000 };

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Asks until `accept` holds, every 50 ms, for at most DEADLINE_MS; fails with the last answer. */
async function within(probe: () => Promise<Answer>, accept: (reply: Answer) => boolean): Promise<Answer> {
  const start = Date.now();
  for (;;) {
    const reply = await probe();
    if (accept(reply)) return reply;
    if (Date.now() - start > DEADLINE_MS) {
      throw new Error(
        `not seen within ${DEADLINE_MS} ms; last answer ${reply.status} ${JSON.stringify(reply.body)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ids = (reply: Answer) => (reply.body as { id: number }[]).map((item) => item.id).join();

describe(`bin/menu-api serve over a temporary ${DATABASE_KIND} database, changed by the CLI`, SLOW, () => {
  const folder = temporaryDirectory();
  let database: TestDatabase;
  let server: ServerProcess;
  let dispensary: { id: number; name: string; token: string };
  let credential: { username: string; password: string };

  beforeAll(async () => {
    database = await testDatabase();
    // The server starts first: everything below reaches it from other processes, while it runs.
    server = await startServe(database.address);
  }, SLOW.timeout);
  afterAll(async () => {
    await server?.stop();
    await database?.cleanup();
    folder.remove();
  }, SLOW.timeout);

  const formA = (overrides: Record<string, unknown> = {}) =>
    fetch(`${server.url}/menu`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: credential.username,
        password: credential.password,
        collective_token: dispensary.token,
        ...overrides,
      }),
    }).then(answer);
  const formB = (overrides: Record<string, string> = {}) =>
    fetch(`${server.url}/menu`, {
      headers: {
        store: dispensary.token,
        username: credential.username,
        password: credential.password,
        ...overrides,
      },
    }).then(answer);

  // What is not the database's to prove runs on SQLite only: the PostgreSQL project runs what proves
  // storage (what another process changed, seen by the server).
  it.skipIf(onPostgres)('listens on the free port it picked and prints its URL', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:(0|8080)$/);
  });

  it('serves a dispensary, credential and menu made by the CLI, in both forms, over real HTTP', async () => {
    [dispensary, credential] = await Promise.all([
      cliJson<typeof dispensary>(database.address, ['dispensary', 'create', '--name', 'E2E Collective']),
      cliJson<typeof credential>(database.address, ['credential', 'issue', '--username', 'e2e-integrator']),
    ]);
    const file = join(folder.path, 'menu.json');
    writeFileSync(file, JSON.stringify(SAMPLE_MENU));
    expect(
      await cliJson(database.address, ['menu', 'import', '--dispensary', String(dispensary.id), file]),
    ).toEqual({
      dispensary_id: dispensary.id,
      dry_run: false,
      items: 4,
      active_items: 3,
      price_entries: 4,
    });

    const a = await within(formA, (reply) => reply.status === 200 && ids(reply) === '1,3,7');
    expect(a.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect((a.body as unknown[])[1]).toEqual(BLUE_DREAM_FORM_A);
    expect(ids(await formA({ active: false }))).toBe('1,2,3,7');

    const b = await formB();
    expect(b.status).toBe(200);
    expect(b.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(ids(b)).toBe('1,3,7');
    const prices = [
      { unit: 'gram', amount: 1, price: 12, stock: 10 },
      { unit: 'ounce', amount: 0.125, price: 38.5, stock: 0 },
    ];
    expect((b.body as unknown[])[1]).toMatchObject({
      id: 3,
      type: 'Flower',
      subtype: 'Hybrid',
      brand: 'Emerald Farms',
      brand_name: 'Emerald Farms',
      image: 'https://img.example/blue.jpg',
      thc: 21.5,
      cbn: null,
      variants: prices,
      prices,
    });
    const head = await fetch(`${server.url}/menu`, {
      method: 'HEAD',
      headers: { store: dispensary.token, username: credential.username, password: credential.password },
    });
    expect(head.status).toBe(200);
  });

  it.skipIf(onPostgres)('answers errors as JSON over real HTTP', async () => {
    const wrong = await formA({ password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({
      error: {
        code: expect.any(String),
        message: expect.any(String),
        request_id: wrong.headers.get('x-request-id'),
      },
    });
    expect(JSON.stringify(wrong.body)).not.toContain('not-the-password');
    expect((await formB({ store: 'no-such-token' })).status).toBe(403);
    expect((await fetch(`${server.url}/nowhere`).then(answer)).status).toBe(404);
  });

  it('menu set-active by the CLI shows within one second', async () => {
    expect(ids(await formB())).toBe('1,3,7'); // remembered by the server before the change
    await cliJson(database.address, [
      'menu',
      'set-active',
      '--dispensary',
      String(dispensary.id),
      '--item',
      '3',
      'false',
    ]);
    await within(formB, (reply) => reply.status === 200 && ids(reply) === '1,7');
    await within(formA, (reply) => reply.status === 200 && ids(reply) === '1,7');
  });

  it('dispensary rotate-token by the CLI: the old token keeps its grace period; with none it is refused within one second', async () => {
    expect((await formA()).status).toBe(200);
    const rotate = (...args: string[]) =>
      cliJson<{ id: number; token: string }>(database.address, [
        'dispensary',
        'rotate-token',
        String(dispensary.id),
        ...args,
      ]);
    const graced = await rotate();
    expect(ids(await formA({ collective_token: graced.token }))).toBe('1,7');
    expect((await formA()).status).toBe(200);

    const cut = await rotate('--grace-seconds', '0');
    await within(
      () => formA({ collective_token: graced.token }),
      (reply) => reply.status === 403,
    );
    expect((await formB({ store: dispensary.token })).status).toBe(403);
    dispensary = { ...dispensary, token: cut.token };
    expect(ids(await formB())).toBe('1,7');
  });

  it('credential revoke by the CLI: within one second the remembered credential is refused', async () => {
    expect((await formA()).status).toBe(200);
    expect((await formB()).status).toBe(200);
    await cliJson(database.address, ['credential', 'revoke', credential.username]);
    await within(formA, (reply) => reply.status === 401);
    await within(formB, (reply) => reply.status === 401);
  });
});

/** Starts `serve --demo` without --json and reads the human banner; resolves with its URL and text. */
function startHumanDemo(address: string): Promise<{ child: ChildProcess; url: string; banner: string }> {
  const child = spawnCli(['--db', address, 'serve', '--port', '0', '--demo', '--log-level', 'warn']);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url && output.includes('never use --demo')) {
        clearTimeout(timer);
        resolve({ child, url, banner: output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve --demo exited with ${code}:\n${output}`));
    });
  });
}

describe(`bin/menu-api serve --demo over a ${DATABASE_KIND} database`, SLOW, () => {
  let database: TestDatabase;
  const children: ChildProcess[] = [];
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    database = await testDatabase();
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Ctrl-C, as at the terminal it prints its banner to: no drain delay (SIGTERM waits 2 s first).
        child.kill('SIGINT');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
    }
    await database?.cleanup();
  }, SLOW.timeout);

  it('a second start on the same database does not duplicate the demo', async () => {
    const first = await startServe(database.address, ['--demo']);
    servers.push(first);
    const demoB = {
      store: DEMO.token,
      username: DEMO.username,
      password: DEMO.password,
    };
    const before = await fetch(`${first.url}/menu`, { headers: demoB }).then(answer);
    expect(before.status).toBe(200);
    expect((before.body as unknown[]).length).toBeGreaterThanOrEqual(10);
    await first.stop();

    // The second start prints the human banner: its real URL and curl commands that work as printed.
    const second = await startHumanDemo(database.address);
    children.push(second.child);
    expect(second.banner).toContain(`curl -s ${second.url}/menu`);
    expect(second.banner).toContain(`-H 'store: ${DEMO.token}'`);
    const after = await fetch(`${second.url}/menu`, { headers: demoB }).then(answer);
    expect(after.body).toEqual(before.body);

    const [dispensaries, credentials] = await Promise.all([
      cliJson<{ name: string }[]>(database.address, ['dispensary', 'list']),
      cliJson<{ username: string }[]>(database.address, ['credential', 'list']),
    ]);
    expect(dispensaries.map((dispensary) => dispensary.name)).toEqual([DEMO.dispensaryName]);
    expect(credentials.map((entry) => entry.username)).toEqual([DEMO.username]);
  });
});
