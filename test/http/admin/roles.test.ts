import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapi from '../../../openapi.json' with { type: 'json' };
import { CLI_OPERATOR } from '../../../src/services/accounts.js';
import { adminKey, syncTestRuntime } from '../../helpers/admin.js';
import type { TestRuntime } from '../../helpers/runtime.js';

/**
 * Every role against every route of the sync API, under an account's session (cookie and CSRF token):
 * what each role may do is spelt out here, route by route, independently of the permission table it
 * checks; an allowed request is not refused (whatever else it answers), a refused one gets 403.
 */
const ORIGIN = 'http://localhost:80';
const PASSWORD = 'correct horse battery staple';

type Role = 'operator' | 'manager' | 'staff' | 'integrator';
/**
 * Who may: every person of a dispensary, managers and operators, or operators only. An integrator
 * (registered at /developers) may reach its own account's routes and nothing else.
 */
const ALL: Role[] = ['operator', 'manager', 'staff'];
const OWN_ACCOUNT: Role[] = [...ALL, 'integrator'];
const INTEGRATORS: Role[] = ['integrator'];
const MANAGERS: Role[] = ['operator', 'manager'];
const OPERATORS: Role[] = ['operator'];

interface Session {
  cookie: string;
  csrf: string;
}

async function signInAs(
  runtime: TestRuntime,
  email: string,
  role: Role,
  dispensaryIds: number[],
): Promise<Session> {
  const issued = await runtime.services.accounts.invite({ email, role, dispensaryIds }, CLI_OPERATOR, ORIGIN);
  const token = issued.url.split('#')[1]!;
  return openSession(runtime, '/account-link/accept', { token, password: PASSWORD });
}

/** An integrator registered at /developers, confirmed and approved, signed in with its own password. */
async function integratorSession(runtime: TestRuntime, email: string): Promise<Session> {
  const registered = await runtime.services.integrators.register(
    { email, name: 'Ivy', company: 'Ivy Apps', building: 'A kiosk', password: PASSWORD },
    ORIGIN,
  );
  const integrator = await runtime.services.integrators.confirm(registered.url!.split('#')[1]);
  await runtime.services.integrators.approve(integrator.accountId, CLI_OPERATOR);
  return openSession(runtime, '/session', { email, password: PASSWORD });
}

/** POSTs what opens a session (a sign-in, an accepted link) as the console does, and keeps the session. */
async function openSession(runtime: TestRuntime, path: string, body: object): Promise<Session> {
  const opened = await runtime.app.inject({
    method: 'POST',
    url: `/admin/v1${path}`,
    headers: { 'content-type': 'application/json', origin: ORIGIN, host: 'localhost:80' },
    payload: JSON.stringify(body),
  });
  expect(opened.statusCode, opened.body).toBe(201);
  return {
    cookie: String(opened.headers['set-cookie']).split(';')[0]!,
    csrf: opened.json().csrf_token,
  };
}

function callAs(app: FastifyInstance, session: Session) {
  return (method: string, path: string, body?: unknown): Promise<LightMyRequestResponse> =>
    app.inject({
      method: method as 'GET',
      url: `/admin/v1${path}`,
      headers: {
        host: 'localhost:80',
        origin: ORIGIN,
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
}

describe('every role against every sync API route, under an account session', () => {
  let runtime: TestRuntime;
  let own: number;
  let other: number;
  const sessions = {} as Record<Role, Session>;

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    own = runtime.seed.dispensaryId;
    const key = await adminKey(runtime, 'all', 'setup');
    other = (await key.call('POST', '/dispensaries', { name: 'Other' })).json().id;
    sessions.operator = await signInAs(runtime, 'olga@example.com', 'operator', []);
    sessions.manager = await signInAs(runtime, 'max@example.com', 'manager', [own]);
    sessions.staff = await signInAs(runtime, 'sam@example.com', 'staff', [own]);
    sessions.integrator = await integratorSession(runtime, 'ivy@example.com');
    // Its access to the dispensary approved, so that the role is all its webhook routes ask of it.
    expect((await key.call('PATCH', `/dispensaries/${own}`, { published: true })).statusCode).toBe(200);
    const asked = await callAs(runtime.app, sessions.integrator)('POST', '/developer/access', {
      dispensary: 'Test Collective',
    });
    expect(asked.statusCode, asked.body).toBe(201);
    const approved = await key.call('POST', `/access-requests/${asked.json().id}/approve`);
    expect(approved.statusCode, approved.body).toBe(200);
  });
  afterAll(() => runtime?.close());

  /** Each route once, on the role's own dispensary (`d`), with who may call it. */
  const routes = (d: number): [string, string, unknown, Role[]][] => [
    ['GET', '/dispensaries', undefined, ALL],
    ['GET', `/dispensaries/${d}`, undefined, ALL],
    ['GET', `/dispensaries/${d}/menu`, undefined, ALL],
    ['GET', `/dispensaries/${d}/menu/export?format=json`, undefined, ALL],
    ['PUT', `/dispensaries/${d}/menu`, [], ALL],
    ['POST', `/dispensaries/${d}/menu/import?format=json&dry_run=true`, [], ALL],
    ['PATCH', `/dispensaries/${d}/menu/items`, [], ALL],
    ['PATCH', `/dispensaries/${d}/menu/items/9`, { name: 'Nine' }, ALL],
    ['GET', '/account/passkeys', undefined, OWN_ACCOUNT],
    ['POST', '/account/passkeys/options', undefined, OWN_ACCOUNT],
    ['POST', '/account/passkeys', { name: 'Laptop', response: {} }, OWN_ACCOUNT],
    ['DELETE', '/account/passkeys/999', undefined, OWN_ACCOUNT],
    ['GET', '/account/totp', undefined, OWN_ACCOUNT],
    ['POST', '/account/totp/confirm', { code: '000000' }, OWN_ACCOUNT],
    ['POST', '/account/totp/disable', { code: '000000' }, OWN_ACCOUNT],
    ['POST', '/account/totp', undefined, OWN_ACCOUNT],
    // The same password again: refused (400) once the current one is proven, so nothing changes.
    ['POST', '/account/password', { current_password: PASSWORD, new_password: PASSWORD }, OWN_ACCOUNT],
    ['DELETE', `/dispensaries/${d}/menu/items/9`, undefined, ALL],
    ['POST', `/dispensaries/${d}/menu/items/9/lab-result`, { metric_list: [] }, ALL],
    ['PATCH', `/dispensaries/${d}/inventory`, [], ALL],
    ['GET', `/dispensaries/${d}/specials`, undefined, ALL],
    ['POST', `/dispensaries/${d}/specials`, {}, ALL],
    ['GET', `/dispensaries/${d}/specials/schedule`, undefined, ALL],
    ['GET', `/dispensaries/${d}/specials/999`, undefined, ALL],
    ['PATCH', `/dispensaries/${d}/specials/999`, { name: 'Nine' }, ALL],
    ['DELETE', `/dispensaries/${d}/specials/999`, undefined, ALL],
    ['PATCH', `/dispensaries/${d}`, { city: 'Salem' }, MANAGERS],
    ['POST', `/dispensaries/${d}/rotate-token`, undefined, MANAGERS],
    ['GET', `/audit?dispensary_id=${d}`, undefined, MANAGERS],
    ['GET', '/webhooks', undefined, MANAGERS],
    [
      'POST',
      '/webhooks',
      { credential: runtime.seed.username, dispensary_id: d, url: 'https://example.com/h' },
      MANAGERS,
    ],
    ['GET', '/webhooks/999', undefined, MANAGERS],
    ['PATCH', '/webhooks/999', { enabled: false }, MANAGERS],
    ['POST', '/webhooks/999/rotate-secret', undefined, MANAGERS],
    ['GET', '/webhooks/999/deliveries', undefined, MANAGERS],
    ['POST', '/webhooks/999/deliveries/msg_x/retry', undefined, MANAGERS],
    ['DELETE', '/webhooks/999', undefined, MANAGERS],
    ['GET', '/accounts', undefined, MANAGERS],
    ['POST', '/accounts', { email: 'new-staff@example.com', role: 'staff', dispensary_ids: [d] }, MANAGERS],
    ['PATCH', '/accounts/999', { role: 'staff' }, MANAGERS],
    ['POST', '/accounts/999/reset-password', undefined, MANAGERS],
    ['DELETE', '/accounts/999', undefined, MANAGERS],
    ['POST', '/dispensaries', { name: 'Another' }, OPERATORS],
    ['GET', '/usage', undefined, OPERATORS],
    ['GET', '/credentials', undefined, OPERATORS],
    ['POST', '/credentials', { username: 'role-test' }, OPERATORS],
    ['DELETE', '/credentials/nobody', undefined, OPERATORS],
    ['GET', '/admin-keys', undefined, OPERATORS],
    ['POST', '/admin-keys', { name: 'role-test', scope: 'all' }, OPERATORS],
    ['DELETE', '/admin-keys/nobody', undefined, OPERATORS],
    ['DELETE', '/dispensaries/999', undefined, OPERATORS],
    ['GET', '/integrators', undefined, OPERATORS],
    ['POST', '/integrators/999/approve', undefined, OPERATORS],
    ['POST', '/integrators/999/decline', undefined, OPERATORS],
    ['GET', '/access-requests', undefined, MANAGERS],
    ['POST', '/access-requests/999/approve', undefined, MANAGERS],
    ['POST', '/access-requests/999/decline', undefined, MANAGERS],
    ['GET', '/developer', undefined, INTEGRATORS],
    ['POST', '/developer/rotate-password', undefined, INTEGRATORS],
    ['POST', '/developer/access', { dispensary: 'Nowhere' }, INTEGRATORS],
    ['POST', '/developer/access/999/token', undefined, INTEGRATORS],
    ['GET', '/developer/usage?hours=48', undefined, INTEGRATORS],
    ['GET', '/developer/webhooks', undefined, INTEGRATORS],
    ['POST', '/developer/webhooks', { dispensary_id: d, url: 'https://example.com/h' }, INTEGRATORS],
    ['PATCH', '/developer/webhooks/999', { enabled: false }, INTEGRATORS],
    ['POST', '/developer/webhooks/999/rotate-secret', undefined, INTEGRATORS],
    ['GET', '/developer/webhooks/999/deliveries', undefined, INTEGRATORS],
    ['DELETE', '/developer/webhooks/999', undefined, INTEGRATORS],
  ];

  it('names every route of the sync API that needs a key or session', () => {
    const shape = (method: string, path: string) =>
      `${method.toUpperCase()} ${path.replace(/\?.*/, '').replace(/\/(\d+|\{[a-z_]+\}|msg_x|nobody)(?=\/|$)/g, '/:x')}`;
    const named = new Set(routes(1).map(([method, path]) => shape(method, path)));
    const documented = Object.entries(openapi.paths as Record<string, Record<string, unknown>>)
      .filter(
        ([path]) => path.startsWith('/admin/v1/') && !/\/(session|sessions|account-link)(\/|$)/.test(path),
      )
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => method !== 'head')
          .map((method) => shape(method, path.slice('/admin/v1'.length))),
      );
    expect(new Set(documented)).toEqual(named);
  });

  for (const role of OWN_ACCOUNT) {
    it(`${role}: allowed where the table says, 403 elsewhere`, async () => {
      const call = callAs(runtime.app, sessions[role]);
      for (const [method, path, body, who] of routes(own)) {
        const response = await call(method, path, body);
        if (who.includes(role))
          expect(response.statusCode, `${method} ${path}: ${response.body}`).not.toBe(403);
        else {
          expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(403);
          expect(response.json().error.code).toBe('forbidden');
        }
      }
    });
  }

  it('a manager or staff account is refused every route of a dispensary it does not cover', async () => {
    for (const role of ['manager', 'staff'] as const) {
      const call = callAs(runtime.app, sessions[role]);
      const ofOther = routes(other).filter(([, path]) => path.includes(`/dispensaries/${other}`));
      for (const [method, path, body, who] of ofOther) {
        const response = await call(method, path, body);
        expect(response.statusCode, `${role} ${method} ${path}`).toBe(403);
        // Where the role would be allowed on its own dispensary, the refusal names the dispensary.
        if (who.includes(role)) expect(response.json().error.message).toContain(`not dispensary ${other}`);
      }
      const listed = (await call('GET', '/dispensaries')).json() as { id: number }[];
      expect(listed.map((dispensary) => dispensary.id)).toEqual([own]);
    }
  });

  it('the audit log names the person, never a password or link', async () => {
    const entries = await runtime.services.audit.list({ limit: 1000 });
    const actors = new Set(entries.map((entry) => entry.actor));
    expect(actors).toContain('account:max@example.com');
    expect(actors).toContain('account:sam@example.com');
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });
});
