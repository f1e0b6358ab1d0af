import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { errorResponses } from '../../src/http/pipeline/error-responses.js';
import { adminKey } from '../helpers/admin.js';
import { formABody, formBHeaders, formV1Headers } from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/**
 * What a route declares in its config (src/http/pipeline/route-facts.ts) is what the server does and what the
 * OpenAPI document says, with no list of paths between them: rate-limit exemption, Menu-Cursor and
 * Idempotency-Key.
 */

type Json = Record<string, unknown>;

let runtime: TestRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

async function document(app: TestRuntime['app']): Promise<Json> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body) as Json;
}

function operation(doc: Json, path: string, method: string): Json {
  const found = (doc.paths as Record<string, Record<string, Json>>)[path]?.[method];
  expect(found, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  return found!;
}

/** The header names of an operation's answer (a shared response is looked up). */
function answerHeaders(doc: Json, op: Json, status: string): string[] {
  let response = (op.responses as Record<string, Json>)[status]!;
  if (typeof response.$ref === 'string') {
    const name = response.$ref.split('/').pop()!;
    response = ((doc.components as Json).responses as Record<string, Json>)[name]!;
  }
  return Object.keys((response.headers ?? {}) as Json);
}

const parameterNames = (op: Json) =>
  ((op.parameters ?? []) as Json[]).map((parameter) => parameter.$ref ?? parameter.name);

describe('route facts', () => {
  it('a route declared exempt (rateLimited: false) is never limited, and the document says so', async () => {
    runtime = await testRuntime({ config: { rateLimitAddress: { ratePerSecond: 0.01, burst: 3 } } });
    const { app } = runtime;
    const answer = Type.Object({ ok: Type.Boolean() });
    const schema = { tags: ['Test'], response: { 200: answer, ...errorResponses(429) } };
    app.get('/test/exempt', { config: { rateLimited: false }, schema }, async () => ({ ok: true }));
    app.get('/test/limited', { schema }, async () => ({ ok: true }));
    // The document first: reading it is counted too (one of the three).
    const doc = await document(app);

    for (let index = 0; index < 4; index += 1) {
      const exempt = await app.inject({ method: 'GET', url: '/test/exempt' });
      expect(exempt.statusCode).toBe(200);
      expect(exempt.headers.ratelimit).toBeUndefined();
    }
    const statuses = [];
    for (let index = 0; index < 3; index += 1) {
      statuses.push((await app.inject({ method: 'GET', url: '/test/limited' })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);

    expect(answerHeaders(doc, operation(doc, '/test/exempt', 'get'), '200')).not.toContain('ratelimit');
    expect(answerHeaders(doc, operation(doc, '/test/limited', 'get'), '200')).toEqual(
      expect.arrayContaining(['ratelimit', 'ratelimit-policy']),
    );
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect(answerHeaders(doc, operation(doc, path, 'get'), '200'), path).not.toContain('ratelimit');
    }
  });

  it('every public read sends Menu-Cursor exactly where its route declares it, as the document says', async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    const { app, seed } = runtime;
    const doc = await document(app);
    const seen = { declared: 0, undeclared: 0 };
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(item)) {
        const tags = (op.tags ?? []) as string[];
        const publicRead = tags.some((tag) => tag.startsWith('Form '));
        // /events (and /v1/events) is a stream that never ends: its first answer is all there is to see, and it has no 200 body.
        if (!publicRead || method === 'head' || path.endsWith('/events')) continue;
        const response = await app.inject(
          method === 'get'
            ? {
                method: 'GET',
                // One item of SAMPLE_MENU where the path names an item.
                url: path.replace('{item_id}', '3'),
                headers: (path.startsWith('/v1/') ? formV1Headers : formBHeaders)(seed),
              }
            : { method: 'POST', url: path, payload: formABody(seed) },
        );
        const where = `${method.toUpperCase()} ${path}`;
        expect(response.statusCode, where).toBe(200);
        const declared = answerHeaders(doc, op, '200').includes('menu-cursor');
        expect(response.headers['menu-cursor'] !== undefined, where).toBe(declared);
        seen[declared ? 'declared' : 'undeclared'] += 1;
      }
    }
    // Forms A and B's /menu, /store and /inventory and Form v1's /v1/menu, /v1/menu/{item_id},
    // /v1/store and /v1/inventory declare it; /changes (and /v1/changes) carries its cursor in the body;
    // /v1/specials is no read of the live feed's.
    expect(seen).toEqual({ declared: 10, undeclared: 4 });
  });

  it('a write declared idempotent replays a repeated Idempotency-Key and documents it; other writes do neither', async () => {
    runtime = await testRuntime();
    const { app, seed } = runtime;
    const { call, key } = await adminKey(runtime);
    const headers = { 'idempotency-key': 'route-facts-1' };
    const patch = { phone: '+1 510 555 0100' };
    const first = await call('PATCH', `/dispensaries/${seed.dispensaryId}`, patch, headers);
    const again = await call('PATCH', `/dispensaries/${seed.dispensaryId}`, patch, headers);
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');

    // Signing in to the console is a write that is not declared idempotent: each sign-in is a new session.
    const signIn = () =>
      app.inject({
        method: 'POST',
        url: '/admin/v1/session',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'route-facts-2' },
        payload: JSON.stringify({ key }),
      });
    const [one, two] = [await signIn(), await signIn()];
    expect([one.statusCode, two.statusCode]).toEqual([201, 201]);
    expect(two.headers['idempotent-replayed']).toBeUndefined();
    expect(one.json<Json>().csrf_token).not.toBe(two.json<Json>().csrf_token);

    const doc = await document(app);
    const update = operation(doc, '/admin/v1/dispensaries/{id}', 'patch');
    expect(parameterNames(update)).toContain('#/components/parameters/IdempotencyKey');
    expect(answerHeaders(doc, update, '200')).toContain('idempotent-replayed');
    const session = operation(doc, '/admin/v1/session', 'post');
    expect(parameterNames(session)).not.toContain('#/components/parameters/IdempotencyKey');
    expect(answerHeaders(doc, session, '201')).not.toContain('idempotent-replayed');
  });
});
