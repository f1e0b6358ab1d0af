import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCaller, adminKey, syncTestRuntime } from '../helpers/admin.js';
import { assertBuilt, runCli, runCommand } from '../helpers/cli.js';
import { formABody, formBHeaders } from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, temporaryDirectory } from '../helpers/runtime.js';

/** issue 15, point 9: each message that misled a newcomer, as it reads now. */
describe('error messages that say what to do next', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU, config: { bodyLimit: 2048 } });
  });
  afterAll(() => runtime.close());
  const errorOf = (response: { json(): unknown }) =>
    (response.json() as { error: { code: string; message: string } }).error;
  /** The message of the answer to `request`, which must be a 400. */
  const refusal = async (request: InjectOptions): Promise<string> => {
    const response = await runtime.app.inject(request);
    expect(response.statusCode).toBe(400);
    return errorOf(response).message;
  };

  it.each([
    {
      name: 'GET /menu carrying a Form A JSON body hints at POST',
      request: (): InjectOptions => ({
        method: 'GET',
        url: '/menu',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(formABody(runtime.seed)),
      }),
      message:
        'GET /menu (Form B) reads the credentials from the headers store, username and password, not from a body. To send them in a JSON body, use POST /menu (Form A).',
    },
    {
      name: 'text/plain carrying a urlencoded form says which content type to send',
      request: (): InjectOptions => ({
        method: 'POST',
        url: '/menu',
        headers: { 'content-type': 'text/plain' },
        payload: new URLSearchParams(formABody(runtime.seed) as Record<string, string>).toString(),
      }),
      message:
        'This text/plain body is a urlencoded form. Send it with Content-Type: application/x-www-form-urlencoded, or send the fields as a JSON object.',
    },
  ])('$name', async ({ request, message }) => {
    expect(await refusal(request())).toBe(message);
  });

  it('unknown query parameters are refused alike on every endpoint and form, naming what is taken', async () => {
    const headers = formBHeaders(runtime.seed);
    expect(await refusal({ method: 'GET', url: '/inventory?snce=2026-01-01T00:00:00Z', headers })).toBe(
      'GET /inventory does not take the query parameter "snce" (it takes since).',
    );
    expect(
      await refusal({ method: 'POST', url: '/menu?active=false', payload: formABody(runtime.seed) }),
    ).toBe('POST /menu does not take the query parameter "active" (its parameters travel in the JSON body).');
    // The parameters an endpoint takes still work.
    const since = await runtime.app.inject({
      method: 'GET',
      url: '/inventory?since=2026-01-01T00:00:00Z',
      headers,
    });
    expect(since.statusCode).toBe(200);
  });

  it('a missing, a malformed, an unknown and a revoked admin key each get their own message', async () => {
    const revoked = await adminKey(runtime, 'all', 'soon-revoked');
    await runtime.services.adminKeys.revoke('soon-revoked');
    const messages = [];
    for (const call of [
      adminCaller(runtime.app, null),
      (method: 'GET', path: string) =>
        runtime.app.inject({
          method,
          url: `/admin/v1${path}`,
          headers: { authorization: 'Token abc' },
        }),
      adminCaller(runtime.app, 'mak_not-a-real-key'),
      revoked.call,
    ]) {
      const response = await call('GET', '/dispensaries');
      expect(response.statusCode).toBe(401);
      messages.push(errorOf(response).message);
    }
    expect(messages[0]).toContain('The sync API needs an admin key: send Authorization: Bearer <admin key>.');
    expect(messages[1]).toContain('The Authorization header is not "Bearer <admin key>"');
    expect(messages[2]).toContain('This admin key is unknown or has been revoked.');
    expect(messages[3]).toBe(messages[2]);
    expect(new Set(messages.slice(0, 3)).size).toBe(3);
  });

  it('a 404 under /admin/v1 points at the sync API, not at /menu', async () => {
    const { call } = await adminKey(runtime);
    const response = await call('GET', '/dispensary');
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).message).toBe(
      'There is no /admin/v1/dispensary in the sync API. Its paths are under /admin/v1 (see /docs or /openapi.json), for example GET /admin/v1/dispensaries.',
    );
    expect(errorOf(await runtime.app.inject({ method: 'GET', url: '/nowhere' })).message).toContain(
      'POST /menu',
    );
  });

  it('413 states the limit', async () => {
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ...formABody(runtime.seed), pad: 'x'.repeat(4096) }),
    });
    expect(response.statusCode).toBe(413);
    expect(errorOf(response).message).toBe(
      'The request body is larger than this endpoint accepts: at most 2048 bytes (2 KiB). Send a smaller body.',
    );
  });

  it('says "must have at most 256 characters", never "must NOT"', async () => {
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      payload: { ...formABody(runtime.seed), username: 'u'.repeat(300) },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).message).toBe(
      'The request is malformed: username field must have at most 256 characters.',
    );
    expect(response.body).not.toContain('NOT');
  });

  it('hours for some days change those days and keep the others; with no hours yet, the missing days are named', async () => {
    const { call } = await adminKey(runtime);
    const id = runtime.seed.dispensaryId;
    const partial = await call('PATCH', `/dispensaries/${id}`, { hours: { monday: { closed: true } } });
    expect(partial.statusCode).toBe(400);
    expect(errorOf(partial).message).toContain(
      'hours has no tuesday, wednesday, thursday, friday, saturday, sunday: the store has no hours yet, so give every day (7)',
    );
    const day = { open: '09:00', close: '21:00', closed: false };
    const week = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((name) => [
        name,
        day,
      ]),
    );
    expect((await call('PATCH', `/dispensaries/${id}`, { hours: week })).statusCode).toBe(200);
    const changed = await call('PATCH', `/dispensaries/${id}`, { hours: { sunday: { closed: true } } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().store.hours).toEqual({
      ...week,
      sunday: { open: null, close: null, closed: true },
    });
  });
});

// Each command in this process (runCommand), but serve, whose port is the subject: its own process.
describe('CLI messages', () => {
  const folder = temporaryDirectory();
  const db = join(folder.path, 'menu.db');
  beforeAll(async () => {
    assertBuilt();
    const menu = join(folder.path, 'menu.json');
    writeFileSync(menu, JSON.stringify(SAMPLE_MENU));
    expect((await runCommand(db, ['dispensary', 'create', '--name', 'Shop'])).code).toBe(0);
    expect((await runCommand(db, ['menu', 'import', '--dispensary', '1', menu])).code).toBe(0);
  });
  afterAll(() => folder.remove());

  it('serve --json reports a port in use as unavailable, saying what to do', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(db, ['serve', '--port', String(port), '--json']);
      expect(result.code).toBe(1);
      const error = (JSON.parse(result.stdout) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('unavailable');
      expect(error.message).toContain('is in use by another process. Stop it, or choose another port.');
    } finally {
      blocker.close();
    }
  });

  it('inventory set --stock -3 names the stock, not "the menu"', async () => {
    const item = SAMPLE_MENU[0] as { id: number; prices: { unit: string; amount: number }[] };
    const price = item.prices[0]!;
    const result = await runCommand(db, [
      'inventory',
      'set',
      '--dispensary',
      '1',
      '--item',
      String(item.id),
      '--unit',
      price.unit,
      '--amount',
      String(price.amount),
      '--stock',
      '-3',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: The stock update was rejected \(1 problem\), nothing was changed: .*stock/,
    );
    expect(result.stderr).not.toContain('menu');
  });

  it('dispensary update --hours with some days missing names them', async () => {
    const result = await runCommand(db, [
      'dispensary',
      'update',
      '1',
      '--hours',
      '{"monday": {"closed": true}}',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('hours has no tuesday, wednesday, thursday, friday, saturday, sunday');
  });
});
