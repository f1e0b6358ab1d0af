import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDraining } from '../../src/http/pipeline/drain.js';
import { adminKey } from '../helpers/admin.js';
import { basicAuthorization } from '../helpers/basic-auth.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/**
 * Every answer of every route the apps register carries the standard headers (src/http/pipeline/answer-headers.ts):
 * the request id, `nosniff`, a Cache-Control, the RateLimit fields where the request was counted, and
 * `Connection: close` while draining. The routes are read from the app itself (printRoutes), so a
 * route added later is covered without touching this file; each is requested over real HTTP, which
 * reaches the read lane and the hijacked event streams as clients do.
 */

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
}

/** Every route of an app, as [method, pattern], from its route tree (printRoutes without common prefixes). */
function registeredRoutes(app: FastifyInstance): [string, string][] {
  const routes: [string, string][] = [];
  const trail: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    trail.length = depth;
    trail.push(match[2]!);
    const path = trail.join('');
    for (const method of match[3]?.split(', ') ?? []) routes.push([method, path]);
  }
  return routes;
}

/** A request path for a route pattern: the published slug, an id nothing has, a file that is none. */
function pathOf(pattern: string): string {
  return pattern
    .replace(':slug', 'test-shop')
    .replace(/:[a-z_]+/g, '999999')
    .replace('*', 'anything');
}

/** OpenAPI's spelling of a route pattern: `{id}` for `:id`. */
const openApiPath = (pattern: string) => pattern.replace(/:([a-z_]+)/g, '{$1}');

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; headers?: object }> }>>;
};

/**
 * Whether an answer must carry the RateLimit fields, where the document describes the route: when it
 * lists them for that status. Undefined elsewhere (pages, files, unmatched paths): then the fields
 * come as a pair or not at all (the pages registered before the limits are not counted).
 */
function documentedRateLimit(
  document: Document,
  method: string,
  pattern: string,
  status: number,
): boolean | undefined {
  const operation = document.paths[openApiPath(pattern)]?.[method.toLowerCase()];
  if (!operation) return undefined;
  let response = operation.responses[String(status)];
  if (!response) return false;
  if (response.$ref) {
    const parts = response.$ref.replace(/^#\//, '').split('/');
    response = parts.reduce<Record<string, never>>((node, part) => node[part]!, document as never);
  }
  return Object.keys(response.headers ?? {}).some((name) => name.toLowerCase() === 'ratelimit');
}

/**
 * One request over a connection of its own, ended as soon as the answer's head arrives (an event
 * stream never ends by itself). Every request carries every form's credentials and the admin key (under
 * /v1, Form v1's Basic credential in its place), so that the routes answer as they do for their clients
 * (event streams open, sync API reads succeed).
 */
function send(base: string, method: string, path: string, credentials: Credentials, id: string) {
  const body =
    method === 'POST'
      ? JSON.stringify({
          username: credentials.username,
          password: credentials.password,
          collective_token: credentials.token,
        })
      : undefined;
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest(
      `${base}${path}`,
      {
        method,
        agent: false,
        headers: {
          'x-request-id': id,
          store: credentials.token,
          username: credentials.username,
          password: credentials.password,
          'dispensary-token': credentials.token,
          // Form v1's credential is HTTP Basic, in the header the admin key travels in elsewhere.
          authorization: path.startsWith('/v1/')
            ? basicAuthorization(`${credentials.username}:${credentials.password}`)
            : `Bearer ${credentials.adminKey}`,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (response) => {
        resolve({ status: response.statusCode!, headers: response.headers });
        request.destroy();
      },
    );
    request.on('error', reject);
    // An answer whose head never comes (a stream's HEAD once did) fails here rather than at the test's timeout.
    request.setTimeout(5_000, () => request.destroy(new Error(`${method} ${path}: no answer in 5 s`)));
    request.end(body);
  });
}

interface Credentials {
  username: string;
  password: string;
  token: string;
  adminKey: string;
}

/** Requests every route of `app` and checks each answer's standard headers. */
async function expectStandardHeadersOnEveryRoute(
  app: FastifyInstance,
  credentials: Credentials,
  options: { draining: boolean; rateLimits: boolean },
): Promise<string[]> {
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const served = await app.inject({ url: '/openapi.json' });
  const document: Document = served.statusCode === 200 ? served.json() : { paths: {} };
  const checked: string[] = [];
  const routes = registeredRoutes(app);
  // An unmatched path and a wrong method (the not-found handler), and a malformed URL (answered by
  // Fastify's frameworkErrors, past the hooks).
  routes.push(['GET', '/no-such-path'], ['PUT', '/healthz'], ['GET', '/bad-%zz']);
  for (const [index, [method, pattern]] of routes.entries()) {
    const id = `headers-${index}`;
    const answer = await send(base, method, pathOf(pattern), credentials, id);
    const where = `${method} ${pattern} answered ${answer.status}`;
    // The ops listener makes its own ids; the public port keeps a client's valid one.
    expect(answer.headers['x-request-id'], where).toEqual(options.rateLimits ? id : expect.any(String));
    expect(answer.headers['x-content-type-options'], where).toBe('nosniff');
    expect(answer.headers['cache-control'], where).toEqual(expect.any(String));
    const limited = answer.headers.ratelimit !== undefined;
    const documented = documentedRateLimit(document, method, pattern, answer.status);
    if (documented !== undefined) expect(limited, `${where}: RateLimit as documented`).toBe(documented);
    if (!options.rateLimits) expect(limited, `${where}: RateLimit`).toBe(false);
    if (limited) {
      expect(answer.headers.ratelimit, where).toMatch(/^"address";r=\d+;t=\d+/);
      expect(answer.headers['ratelimit-policy'] ?? '', where).toMatch(/^"address";q=\d+;w=\d+/);
    } else {
      expect(answer.headers['ratelimit-policy'], where).toBeUndefined();
    }
    if (options.draining) expect(answer.headers.connection, where).toBe('close');
    checked.push(`${method} ${pattern} ${answer.status}${limited ? ' limited' : ''}`);
  }
  return checked;
}

describe('the standard headers of every route', () => {
  let runtime: TestRuntime;
  let credentials: Credentials;

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    const admin = await adminKey(runtime, 'all');
    const published = await admin.call('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
      published: true,
      slug: 'test-shop',
    });
    expect(published.statusCode, published.body).toBe(200);
    credentials = { ...runtime.seed, adminKey: admin.key };
    await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => runtime.close());

  it('on the public port: pages, files, streams, the sync API, the probes and errors', async () => {
    const checked = await expectStandardHeadersOnEveryRoute(runtime.app, credentials, {
      draining: false,
      rateLimits: true,
    });
    // The answers that matter most are real ones: streams open, the menu read by the lane, pages served.
    expect(checked).toEqual(
      expect.arrayContaining([
        'GET /events 200 limited',
        'POST /events 200 limited',
        'GET /v1/events 200 limited',
        'GET /v1/menu 200 limited',
        'GET /m/:slug/events 200 limited',
        'GET /menu 200 limited',
        'POST /menu 200 limited',
        'GET /m/:slug 200 limited',
        'GET /metrics 200',
        'GET /admin/v1/dispensaries 200 limited',
        'GET /no-such-path 404 limited',
        'PUT /healthz 405 limited',
        'GET /bad-%zz 400',
      ]),
    );
  });

  it('while draining, with Connection: close besides', async () => {
    startDraining(runtime.app);
    await expectStandardHeadersOnEveryRoute(runtime.app, credentials, { draining: true, rateLimits: true });
  });
});

describe('the standard headers of the ops listener', () => {
  let runtime: TestRuntime;

  beforeAll(async () => {
    runtime = await testRuntime({ config: { opsPort: 0 } });
    await runtime.ops!.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => runtime.close());

  it('on /healthz, /readyz, /metrics and its errors', async () => {
    const credentials = { ...runtime.seed, adminKey: 'none' };
    // The ops listener limits nothing: probes and scrapers must see the server as it is.
    const checked = await expectStandardHeadersOnEveryRoute(runtime.ops!, credentials, {
      draining: false,
      rateLimits: false,
    });
    expect(checked).toEqual(expect.arrayContaining(['GET /metrics 200', 'GET /healthz 200']));
  });
});
