import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCaller } from '../helpers/admin.js';
import { formABody, formBHeaders, loggedTestRuntime } from '../helpers/http.js';
import { SAMPLE_MENU, type Seed } from '../helpers/runtime.js';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  route?: string | null;
  status?: number;
  ms?: number;
  address?: string;
  username?: string;
  adminKey?: string;
}

describe('logging: one JSON line per request, and never a secret', () => {
  let logged: Awaited<ReturnType<typeof loggedTestRuntime>>;
  let seed: Seed;
  let adminSecret: string;
  /** Every secret the requests below send; none may appear anywhere in the log. */
  const secrets: string[] = [];
  const requestIds: string[] = [];
  let lines: LogLine[];

  beforeAll(async () => {
    logged = await loggedTestRuntime({
      menu: SAMPLE_MENU,
      config: { rateLimitCredential: { ratePerSecond: 0.01, burst: 8 } },
    });
    seed = logged.seed;
    const { app, services } = logged.runtime;
    const created = await services.adminKeys.create('logged-pos', 'all');
    adminSecret = created.key;
    const wrongPassword = 'wrong-password-Zq81vX';
    const wrongToken = 'wrong-token-Kp27Lm';
    const wrongKey = 'mak_wrong-admin-key-Wd93';
    const queryToken = 'query-secret-Hh55';
    const bodyMarker = 'body-marker-Jj42';
    secrets.push(
      seed.password,
      seed.token,
      adminSecret,
      wrongPassword,
      wrongToken,
      wrongKey,
      queryToken,
      bodyMarker,
    );

    const formABodyText = JSON.stringify({ ...formABody(seed), note: bodyMarker });
    const admin = adminCaller(app, adminSecret);
    const responses = [
      // Form A and Form B, right and wrong.
      await app.inject({
        method: 'POST',
        url: '/menu',
        payload: formABodyText,
        headers: { 'content-type': 'application/json' },
      }),
      await app.inject({
        method: 'POST',
        url: '/menu',
        payload: formABody({ ...seed, password: wrongPassword }),
      }),
      await app.inject({ method: 'POST', url: '/store', payload: formABody({ ...seed, token: wrongToken }) }),
      await app.inject({ method: 'POST', url: '/menu', payload: `{"password":"${seed.password}", broken` }),
      await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) }),
      await app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders({ ...seed, password: wrongPassword }),
      }),
      await app.inject({
        method: 'GET',
        url: `/inventory?since=2020-01-01T00:00:00Z&token=${queryToken}`,
        headers: formBHeaders(seed),
      }),
      await app.inject({ method: 'GET', url: `/nowhere?password=${queryToken}` }),
      // The sync API, with the right key and a wrong one.
      await admin('GET', '/dispensaries'),
      await admin('PATCH', `/dispensaries/${seed.dispensaryId}`, { city: bodyMarker }),
      await adminCaller(app, wrongKey)('GET', '/dispensaries'),
      // Rate limited: the credential bucket (8) runs out.
      ...(await Promise.all(
        Array.from({ length: 8 }, () =>
          app.inject({ method: 'GET', url: '/store', headers: formBHeaders(seed) }),
        ),
      )),
    ];
    for (const response of responses) requestIds.push(String(response.headers['x-request-id']));
    expect(responses.some((response) => response.statusCode === 429)).toBe(true);
    lines = logged.lines.map((line) => JSON.parse(line) as LogLine);
  });

  afterAll(async () => {
    await logged?.close();
  });

  const requestLines = () => lines.filter((line) => line.msg === 'request');

  it('exactly one line per request, with its request id', () => {
    const ids = requestLines().map((line) => line.reqId);
    // The first eleven in order; the concurrent ones at the end in any order.
    expect(ids.slice(0, 11)).toEqual(requestIds.slice(0, 11));
    expect([...ids].sort()).toEqual([...requestIds].sort());
    expect(lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toBe(
      false,
    );
  });

  it('each line has the method, the route pattern, the status, the duration and the client address', () => {
    for (const line of requestLines()) {
      expect(line.level).toBe(30);
      expect(typeof line.method).toBe('string');
      expect(typeof line.status).toBe('number');
      expect(typeof line.ms).toBe('number');
      expect(line.ms).toBeGreaterThanOrEqual(0);
      expect(line.address).toBe('127.0.0.1');
    }
    const summary = requestLines().map((line) => `${line.method} ${line.route} ${line.status}`);
    expect(summary.slice(0, 11)).toEqual([
      'POST /menu 200',
      'POST /menu 401',
      'POST /store 403',
      'POST /menu 400',
      'GET /menu 200',
      'GET /menu 401',
      // A token in the query string is an unknown query parameter: refused before any credential check.
      'GET /inventory 400',
      'GET null 404',
      'GET /admin/v1/dispensaries 200',
      'PATCH /admin/v1/dispensaries/:id 200',
      'GET /admin/v1/dispensaries 401',
    ]);
    expect(summary.slice(11).filter((line) => line === 'GET /store 429').length).toBeGreaterThan(0);
  });

  it('names the credential once it was granted, and the admin key by name', () => {
    const [formA, wrongA, , , formB, wrongB, inventory] = requestLines();
    expect(formA!.username).toBe(seed.username);
    expect(formB!.username).toBe(seed.username);
    expect(inventory!.username).toBeUndefined();
    // Not granted: whatever was typed as a username is not worth a log line.
    expect(wrongA!.username).toBeUndefined();
    expect(wrongB!.username).toBeUndefined();
    const adminLines = requestLines().filter((line) => line.route?.startsWith('/admin/'));
    expect(adminLines.map((line) => line.adminKey)).toEqual(['logged-pos', 'logged-pos', undefined]);
  });

  it('no password, token, admin key, query or body reaches the log', () => {
    const text = logged.lines.join('\n');
    for (const secret of secrets) expect(text, `the log contains ${secret}`).not.toContain(secret);
    expect(text).not.toMatch(/authorization/i);
    expect(text).not.toMatch(/bearer/i);
    expect(text).not.toContain('?since=');
  });
});
