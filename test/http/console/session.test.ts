import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { secretDigest } from '../../../src/auth/secrets.js';
import { DEFAULTS } from '../../../src/config.js';
import { adminKey, syncTestRuntime, UNLIMITED } from '../../helpers/admin.js';
import { formBHeaders } from '../../helpers/http.js';
import { type TestRuntime, testRuntime } from '../../helpers/runtime.js';

/**
 * The console's sessions over HTTP, without a browser: the cookie's flags, CSRF on every write (a
 * session-bound token and this server's Origin), sign-out and revocation ending the session on the
 * server, the idle timeout, and failed sign-ins counted by the login guard.
 */
const ORIGIN = 'http://localhost:80';

function cookieFrom(response: LightMyRequestResponse): string {
  const header = String(response.headers['set-cookie']);
  return header.split(';')[0]!;
}

async function signIn(app: FastifyInstance, key: string, headers: Record<string, string> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/admin/v1/session',
    headers: { 'content-type': 'application/json', origin: ORIGIN, host: 'localhost:80', ...headers },
    payload: JSON.stringify({ key }),
  });
  return { response, cookie: cookieFrom(response), csrf: response.json().csrf_token as string };
}

describe('console sessions', () => {
  let runtime: TestRuntime;
  let operator: { name: string; key: string };

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    operator = await adminKey(runtime, 'all', 'operator');
  });
  afterAll(() => runtime?.close());

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    runtime.app.inject({
      method,
      url,
      headers: {
        host: 'localhost:80',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie, not Secure over plain HTTP; only a digest is stored', async () => {
    const { response, cookie } = await signIn(runtime.app, operator.key);
    expect(response.statusCode).toBe(201);
    const header = String(response.headers['set-cookie']);
    expect(header).toMatch(
      /^menu_console_session=[A-Za-z0-9_-]{40,}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(response.json().admin_key).toEqual({ name: 'operator', scope: 'all' });
    expect(response.body).not.toContain(operator.key);
    const id = cookie.split('=')[1]!;
    const { consoleSessions } = runtime.services.store;
    expect(await consoleSessions.find(id)).toBeUndefined();
    expect(await consoleSessions.find(secretDigest(id))).toMatchObject({ adminKeyId: expect.any(Number) });
    // Reads work with the cookie alone.
    const list = await call('GET', '/admin/v1/dispensaries', { cookie });
    expect(list.statusCode).toBe(200);
  });

  it('is Secure behind a trusted proxy that says HTTPS', async () => {
    const proxied = await syncTestRuntime({ config: { trustProxy: true } });
    try {
      const key = await adminKey(proxied);
      const { response } = await signIn(proxied.app, key.key, {
        'x-forwarded-proto': 'https',
        origin: 'https://localhost:80',
      });
      expect(response.statusCode).toBe(201);
      expect(String(response.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await proxied.close();
    }
  });

  it('refuses a write with the cookie but without the CSRF token, or from another origin, with 403', async () => {
    const { cookie, csrf } = await signIn(runtime.app, operator.key);
    const patch = { phone: '+1 510 555 0100' };
    const url = `/admin/v1/dispensaries/${runtime.seed.dispensaryId}`;
    const noToken = await call('PATCH', url, { cookie, origin: ORIGIN }, patch);
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.message).toContain('CSRF');
    const wrongToken = await call(
      'PATCH',
      url,
      { cookie, origin: ORIGIN, 'x-csrf-token': `${csrf}x` },
      patch,
    );
    expect(wrongToken.statusCode).toBe(403);
    const foreign = await call(
      'PATCH',
      url,
      { cookie, origin: 'http://evil.example', 'x-csrf-token': csrf },
      patch,
    );
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.message).toContain('Origin');
    const noOrigin = await call('PATCH', url, { cookie, 'x-csrf-token': csrf }, patch);
    expect(noOrigin.statusCode).toBe(403);
    const other = await signIn(runtime.app, operator.key);
    const otherSessionsToken = await call(
      'PATCH',
      url,
      { cookie, origin: ORIGIN, 'x-csrf-token': other.csrf },
      patch,
    );
    expect(otherSessionsToken.statusCode).toBe(403);
    const good = await call('PATCH', url, { cookie, origin: ORIGIN, 'x-csrf-token': csrf }, patch);
    expect(good.statusCode).toBe(200);
    expect(good.json().store.phone).toBe('+1 510 555 0100');
    // The audit log names the key the session acts as.
    const audit = await call('GET', '/admin/v1/audit?actor=key:operator', { cookie });
    expect(audit.json().at(-1).action).toBe('dispensary.update');
  });

  it('refuses a sign-in from another origin, and a wrong key with 401 counted by the login guard', async () => {
    const foreign = await signIn(runtime.app, operator.key, { origin: 'http://evil.example' });
    expect(foreign.response.statusCode).toBe(403);
    const guarded = await testRuntime({
      config: { ...UNLIMITED, loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 3, perUsername: 0 } },
    });
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const wrong = await signIn(guarded.app, 'mak_wrong');
        expect(wrong.response.statusCode).toBe(401);
        expect(wrong.response.headers['set-cookie']).toBeUndefined();
      }
      const key = await adminKey(guarded);
      const locked = await signIn(guarded.app, key.key);
      expect(locked.response.statusCode).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('GET /session gives the CSRF token back; sign-out ends the session on the server', async () => {
    const { cookie, csrf } = await signIn(runtime.app, operator.key);
    const again = await call('GET', '/admin/v1/session', { cookie });
    expect(again.statusCode).toBe(200);
    expect(again.json().csrf_token).toBe(csrf);
    const noCsrf = await call('DELETE', '/admin/v1/session', { cookie, origin: ORIGIN });
    expect(noCsrf.statusCode).toBe(403);
    const out = await call('DELETE', '/admin/v1/session', { cookie, origin: ORIGIN, 'x-csrf-token': csrf });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(
      /^menu_console_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    // The old cookie, replayed, is worth nothing.
    expect((await call('GET', '/admin/v1/dispensaries', { cookie })).statusCode).toBe(401);
    expect((await call('GET', '/admin/v1/session', { cookie })).statusCode).toBe(401);
  });

  it("ends a key's sessions as soon as the key is revoked", async () => {
    const staff = await adminKey(runtime, `dispensary:${runtime.seed.dispensaryId}`, 'staff');
    const { cookie } = await signIn(runtime.app, staff.key);
    expect((await call('GET', '/admin/v1/dispensaries', { cookie })).statusCode).toBe(200);
    const revoked = await call('DELETE', '/admin/v1/admin-keys/staff', {
      authorization: `Bearer ${operator.key}`,
    });
    expect(revoked.statusCode).toBe(204);
    const after = await call('GET', '/admin/v1/dispensaries', { cookie });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.message).toContain('Sign in again');
  });

  it('ends a session unused for longer than the idle timeout', async () => {
    const short = await syncTestRuntime({ config: { consoleIdleTimeout: 1 } });
    // Only the clock is fake (no timer): the session's times are Date's, and the database runs as ever.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const key = await adminKey(short);
      const { response, cookie } = await signIn(short.app, key.key);
      expect(response.statusCode).toBe(201);
      const signedInAt = Date.now();
      const session = () => short.app.inject({ url: '/admin/v1/session', headers: { cookie } });
      vi.setSystemTime(signedInAt + 900);
      expect((await session()).statusCode).toBe(200);
      vi.setSystemTime(signedInAt + 1_100);
      expect((await session()).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
      await short.close();
    }
  });

  it('counts granted public requests per credential and hour, shown by GET /usage', async () => {
    const headers = formBHeaders(runtime.seed);
    for (let request = 0; request < 3; request += 1) {
      expect((await runtime.app.inject({ url: '/menu', headers })).statusCode).toBe(200);
    }
    const usage = await call('GET', '/admin/v1/usage', { authorization: `Bearer ${operator.key}` });
    expect(usage.statusCode).toBe(200);
    const mine = usage.json().filter((row: { username: string }) => row.username === runtime.seed.username);
    expect(mine.reduce((sum: number, row: { requests: number }) => sum + row.requests, 0)).toBe(3);
    expect(DEFAULTS.consoleIdleTimeout).toBe(1800);
  });
});
