import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import { STATUS_BY_CODE } from '../../src/http/pipeline/errors.js';
import { createRuntime } from '../../src/server/runtime.js';
import { adminKey, UNLIMITED } from '../helpers/admin.js';
import { basicAuthorization } from '../helpers/basic-auth.js';
import { SAMPLE_MENU, seedRuntime, type TestRuntime, testDatabase } from '../helpers/runtime.js';

/**
 * Fuzzing every public and admin endpoint through app.inject: random and malformed JSON, wrong types,
 * huge numbers, deep nesting, odd content types, missing and repeated headers, invalid UTF-8 and path
 * tricks. Every answer must be one of the documented statuses; every error must be the JSON error body
 * whose code matches the status; never a 500; and the server answers normally afterwards. A smaller run
 * over a real socket sends what inject cannot (raw bytes in the request line and headers).
 *
 * FUZZ_RUNS sets the cases per endpoint (default 1000: about 27,000 requests per database).
 */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
export const SOCKET_RUNS = RUNS;

/**
 * The documented statuses (docs/errors.md, and the OpenAPI document): 304 for a matching
 * If-None-Match, 503 only while the database is unreachable (it never is here, so it is not allowed),
 * 301 for `/docs/` (a trailing slash leads to /docs).
 */
export const DOCUMENTED = new Set([
  200, 201, 204, 301, 304, 400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 422, 429, 431,
]);

/**
 * Operations not fuzzed here: an /events answer that gets through is a stream that never ends, which
 * app.inject cannot read. They share /changes' parameters and checks, which are fuzzed; the streams
 * themselves are proven over real HTTP (test/e2e/live.e2e.test.ts; Form v1's in test/forms/v1-menu.test.ts).
 */
export const NOT_FUZZED = new Set([
  'GET /events',
  'HEAD /events',
  'POST /events',
  'GET /v1/events',
  'HEAD /v1/events',
]);

export type Kind = 'form-a' | 'form-b' | 'form-v1' | 'ops' | 'docs' | 'admin';

export interface Endpoint {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  kind: Kind;
}

/** Every endpoint; a test below checks that the OpenAPI document lists none that is missing here. */
export const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/menu', kind: 'form-a' },
  { method: 'POST', path: '/store', kind: 'form-a' },
  { method: 'POST', path: '/inventory', kind: 'form-a' },
  { method: 'GET', path: '/menu', kind: 'form-b' },
  { method: 'HEAD', path: '/menu', kind: 'form-b' },
  { method: 'GET', path: '/store', kind: 'form-b' },
  { method: 'GET', path: '/inventory', kind: 'form-b' },
  { method: 'GET', path: '/v1/menu', kind: 'form-v1' },
  { method: 'HEAD', path: '/v1/menu', kind: 'form-v1' },
  { method: 'GET', path: '/v1/menu/:item_id', kind: 'form-v1' },
  { method: 'HEAD', path: '/v1/menu/:item_id', kind: 'form-v1' },
  { method: 'GET', path: '/v1/store', kind: 'form-v1' },
  { method: 'GET', path: '/v1/inventory', kind: 'form-v1' },
  { method: 'GET', path: '/v1/specials', kind: 'form-v1' },
  { method: 'GET', path: '/v1/changes', kind: 'form-v1' },
  { method: 'POST', path: '/changes', kind: 'form-a' },
  { method: 'GET', path: '/changes', kind: 'form-b' },
  { method: 'GET', path: '/healthz', kind: 'ops' },
  { method: 'GET', path: '/readyz', kind: 'ops' },
  { method: 'GET', path: '/metrics', kind: 'ops' },
  { method: 'GET', path: '/openapi.json', kind: 'docs' },
  { method: 'GET', path: '/docs', kind: 'docs' },
  { method: 'POST', path: '/admin/v1/dispensaries', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries/:id', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/dispensaries/:id', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/dispensaries/:id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/dispensaries/:id/rotate-token', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/credentials', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/credentials', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/credentials/:username', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries/:id/menu', kind: 'admin' },
  { method: 'PUT', path: '/admin/v1/dispensaries/:id/menu', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/dispensaries/:id/menu/items', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/dispensaries/:id/menu/items/:item_id', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/dispensaries/:id/menu/items/:item_id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/dispensaries/:id/menu/items/:item_id/lab-result', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/dispensaries/:id/inventory', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/dispensaries/:id/menu/import', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries/:id/menu/export', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/admin-keys', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/admin-keys', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/admin-keys/:name', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/audit', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/usage', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/session', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/session', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/session', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/sessions', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account-link', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account-link/accept', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/session/sso', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/session/sso/sign-in', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/session/sso/callback', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/accounts', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/accounts', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/accounts/:id', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/accounts/:id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/accounts/:id/reset-password', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/integrators', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/integrators/:id/approve', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/integrators/:id/decline', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/developer', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/developer/rotate-password', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/developer/access', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/developer/access/:id/token', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/developer/usage', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/developer/webhooks', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/developer/webhooks', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/developer/webhooks/:id', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/developer/webhooks/:id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/developer/webhooks/:id/rotate-secret', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/developer/webhooks/:id/deliveries', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/access-requests', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/access-requests/:id/approve', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/access-requests/:id/decline', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/session/passkey/options', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/session/passkey', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/account/passkeys', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account/passkeys/options', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account/passkeys', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/account/passkeys/:id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/session/second-factor', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/session/second-factor/enroll', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/session/second-factor/enroll/confirm', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/account/totp', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account/totp', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account/totp/confirm', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account/totp/disable', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/account/password', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries/:id/specials', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/dispensaries/:id/specials', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries/:id/specials/schedule', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/dispensaries/:id/specials/:special_id', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/dispensaries/:id/specials/:special_id', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/dispensaries/:id/specials/:special_id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/webhooks', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/webhooks', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/webhooks/:id', kind: 'admin' },
  { method: 'PATCH', path: '/admin/v1/webhooks/:id', kind: 'admin' },
  { method: 'DELETE', path: '/admin/v1/webhooks/:id', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/webhooks/:id/rotate-secret', kind: 'admin' },
  { method: 'GET', path: '/admin/v1/webhooks/:id/deliveries', kind: 'admin' },
  { method: 'POST', path: '/admin/v1/webhooks/:id/deliveries/:delivery_id/retry', kind: 'admin' },
];

// Building blocks

/** Header-safe text: printable ASCII and Latin-1 bytes (which is how invalid UTF-8 arrives in a header). */
export const headerText = (maxLength = 80) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength,
  });

/** A secret: the right one, a near miss, junk, empty, or longer than the 256-character limit. */
export const secret = (valid: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(valid) },
    fc.constant(''),
    headerText(40),
    fc.constant(`${valid} `),
    fc.constant(valid.toUpperCase()),
    fc.constant('x'.repeat(257)),
    fc.constant("' OR 1=1 --"),
  );

export const HUGE_NUMBERS = [
  '1e309',
  '-1e309',
  '1'.repeat(400),
  `0.${'0'.repeat(400)}1`,
  '-0',
  '1E+99999',
  '9007199254740993',
  '-9223372036854775809',
  '0.1e-400',
  '12345678901234567890',
];

/** Any JSON value, as text: including huge numbers, which JSON.stringify cannot produce. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'),
  fc.constantFrom(...HUGE_NUMBERS),
  fc.constantFrom('true', 'false', 'null', '""', '[]', '{}', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"'),
);

/** Nesting deep enough to hurt a recursive parser or validator. */
export const deepNesting = fc
  .tuple(fc.integer({ min: 33, max: 20_000 }), fc.constantFrom('array', 'object', 'mixed'))
  .map(([depth, shape]) => {
    if (shape === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    if (shape === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
  });

/** Text that is almost JSON: cut short, with comments, trailing commas, single quotes, a BOM. */
export const malformedJson = (valid: string) =>
  fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, valid.length - 1) }).map((at) => valid.slice(0, at)),
    fc.constantFrom(
      `${valid},`,
      `\ufeff${valid}`,
      valid.replaceAll('"', "'"),
      `/* c */${valid}`,
      `${valid}${valid}`,
      valid.replace('{', '{,'),
      '{"a":1,}',
      '{"a" 1}',
      'NaN',
      'undefined',
      '\u0000',
    ),
    fc.string({ maxLength: 200 }),
  );

/** Invalid UTF-8 and other raw bytes. */
export const rawBytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.from([0x7b, 0x22, 0x75, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])), // {"u":"\xc3("}
  fc.constant(Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])), // UTF-16 with BOM
  fc.constant(Buffer.from([0xed, 0xa0, 0x80])), // an encoded surrogate
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json;;;',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----fuzz',
  'application/xml',
  'text/html',
  '*/*',
  'application/vnd.api+json',
  'application/json, text/plain',
  '',
];

export const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
  headerText(60),
  fc.constant<string[]>(['application/json', 'text/plain']),
);

/** A JSON object like `valid`, with fields dropped, retyped, or added (prototype keys included). */
export const mutatedObject = (valid: Record<string, unknown>) =>
  fc
    .tuple(
      fc.subarray(Object.keys(valid)),
      fc.dictionary(fc.constantFrom(...Object.keys(valid), '__proto__', 'constructor', 'extra'), jsonText, {
        maxKeys: 3,
      }),
    )
    .map(([kept, replaced]) => {
      const fields = kept.map((key) => `${JSON.stringify(key)}:${JSON.stringify(valid[key])}`);
      for (const [key, value] of Object.entries(replaced)) fields.push(`${JSON.stringify(key)}:${value}`);
      return `{${fields.join(',')}}`;
    });

/** A urlencoded form with these field names, values sometimes repeated or odd. */
export const urlEncoded = (valid: Record<string, unknown>) =>
  fc
    .array(
      fc.tuple(
        fc.constantFrom(...Object.keys(valid), 'active', '__proto__', ''),
        fc.oneof(fc.constantFrom('true', 'false', ...Object.values(valid).map(String)), headerText(20)),
      ),
      { maxLength: 6 },
    )
    .map((pairs) =>
      pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&'),
    );

/** A request body for an endpoint whose valid body is `valid` (an object or array). */
export const body = (valid: unknown) => {
  const text = JSON.stringify(valid);
  const asObject =
    valid && typeof valid === 'object' && !Array.isArray(valid)
      ? (valid as Record<string, unknown>)
      : { value: valid };
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<string | Buffer | undefined>(text) },
    { weight: 3, arbitrary: mutatedObject(asObject) },
    { weight: 2, arbitrary: jsonText },
    deepNesting,
    malformedJson(text),
    rawBytes,
    urlEncoded(asObject),
    fc.constant(undefined),
    fc.constant('x'.repeat(70 * 1024)), // over the public body limit
  );
};

/** Path parameter values: good ids, and everything an id must not be. */
export const pathParam = (good: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...good) },
    fc.constantFrom(
      '0',
      '-1',
      '1.5',
      '1e3',
      '99999999999',
      '12345678901234567890',
      '..',
      '%2e%2e',
      '%00',
      '1%00',
      '%20',
      '1;DROP',
      '%ff',
      '%c3%28',
      '%E2%82',
      'NaN',
      '0x10',
      '%2F',
      '1%2F..%2F2',
    ),
    fc.stringMatching(/^[A-Za-z0-9._~%-]{1,20}$/),
  );

/** Ways to write a path that should not reach anything else: dot segments, encodings, doubled slashes. */
export const pathTrick = fc.constantFrom<(path: string) => string>(
  (path) => path,
  (path) => path,
  (path) => path,
  (path) => `/${path}`,
  (path) => `${path}/`,
  (path) => `${path}/..`,
  (path) => `${path}/../..`,
  (path) => path.replace(/^\//, '/./'),
  (path) => `/%2e%2e${path}`,
  (path) => `/..${path}`,
  (path) => path.replaceAll('/', '//'),
  (path) => path.replaceAll('/', '%2f'),
  (path) => path.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`),
  (path) => path.toUpperCase(),
  (path) => `${path}%00`,
  (path) => `${path}%`,
  (path) => `${path}%zz`,
  (path) => `${path};jsessionid=1`,
  (path) => `${path}#fragment`,
  (path) => `${path}/%2e%2e/%2e%2e/etc/passwd`,
  (path) => `/admin/v1/..${path}`,
);

export const QUERIES = fc.oneof(
  fc.constant(''),
  fc.constant('?since=2026-01-01T00:00:00Z'),
  fc.constant('?after=0000000000000001&limit=5'),
  fc.constant('?after=00000000000000x1&limit=-1'),
  fc.constant('?since=2026-01-01T00:00:00Z&since=2027-01-01T00:00:00Z'),
  fc.constant('?since=%ff%fe'),
  fc.constant('?since'),
  fc.constant('?since[]=1&since[x]=2'),
  fc.constant(`?since=${'9'.repeat(300)}`),
  fc.constant('?__proto__[a]=1&constructor=2'),
  // Form v1's /v1/menu query (and the same words anywhere else).
  fc.constant('?q=blue%20dr&sort=-relevance&limit=2&fields=id,name,prices.price&facets=brand,tag'),
  fc.constant('?product_type=Flower,Edible&tag=x&tag=y&thc_min=10&thc_max=5&price_max=abc'),
  fc.constant('?cursor=WyJbbnVsbCwzXSIsIngiXQ&limit=1001&sort=colour&ids=1,-2'),
  fc.constant('?fields=prices.nope&facets=colour&in_stock=false&active=maybe&menu_type=med'),
  fc.constant(`?q=${'%C3%A9'.repeat(150)}&updated_since=2026-02-30T00:00:00Z`),
  fc.stringMatching(/^\?[A-Za-z0-9=&%._-]{0,40}$/),
);

/** Extra headers any request may carry. */
export const extraHeaders = fc.record(
  {
    'x-request-id': fc.oneof(fc.constant('fuzz-1'), headerText(100)),
    'idempotency-key': fc.oneof(fc.constant('fuzz-key'), headerText(300)),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'gzip, br', 'identity;q=0', '*', 'x'),
    'if-none-match': fc.oneof(fc.constant('*'), fc.constant('"abc"'), headerText(40)),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', ''),
    origin: fc.constantFrom('https://evil.example', 'null'),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1', 'garbage', '1.2.3.4, 5.6.7.8'),
  },
  { requiredKeys: [] },
);

// The checks

/** fast-check's report, cut short: a counterexample may be a 100 KB body. The seed reproduces it. */
export function shortReport<Ts>(details: fc.RunDetails<Ts>): void {
  if (!details.failed) return;
  const message = fc.defaultReportMessage(details) ?? 'property failed';
  const cut = (text: string) =>
    text.length > 3_000 ? `${text.slice(0, 3_000)}… (${text.length} chars)` : text;
  const cause =
    details.errorInstance instanceof Error ? `\n\nCaused by: ${cut(details.errorInstance.message)}` : '';
  throw new Error(`${cut(message)}${cause}`);
}

export function describeRequest(request: {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  payload?: unknown;
}) {
  const payload = request.payload;
  const shown =
    payload === undefined
      ? ''
      : Buffer.isBuffer(payload)
        ? `<${payload.length} bytes>`
        : String(payload).length > 300
          ? `${String(payload).slice(0, 300)}… (${String(payload).length} chars)`
          : String(payload);
  return `${request.method} ${request.url}\nheaders: ${JSON.stringify(request.headers).slice(0, 500)}\nbody: ${shown}`;
}

/** What the checks read of an answer: the body only where it is checked (an error's). */
export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * Injects the request and reads the answer's body only when it is an error: a successful answer's
 * body is not checked, and reading it is most of the cost of the large ones (the 500 KB OpenAPI
 * document, /metrics), which fuzzing them a thousand times each paid over and over.
 */
export async function answerTo(app: FastifyInstance, request: InjectOptions): Promise<Answer> {
  const response = await app.inject({ ...request, payloadAsStream: true });
  const stream = response.stream();
  if (response.statusCode < 400) {
    stream.resume();
    return { statusCode: response.statusCode, headers: response.headers, body: '' };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return {
    statusCode: response.statusCode,
    headers: response.headers,
    body: Buffer.concat(chunks).toString(),
  };
}

/**
 * What is wrong with an answer, by the rules above; empty when nothing is. Plain checks rather than an
 * `expect` each: a fuzz run makes tens of thousands of answers, and Vitest's bookkeeping for every
 * `expect` call was a tenth of this file's time. A broken rule still fails through `expect` (checkAnswer).
 */
export function answerProblems(response: Answer, method: string): string[] {
  const problems: string[] = [];
  if (!DOCUMENTED.has(response.statusCode)) problems.push('undocumented status');
  if (!response.headers['x-request-id']) problems.push('no x-request-id');
  if (response.statusCode < 400 || method === 'HEAD') return problems;
  if (response.headers['content-type'] !== 'application/json; charset=utf-8') {
    problems.push(`content-type ${String(response.headers['content-type'])}`);
  }
  let parsed: { error?: { code?: unknown; message?: unknown; request_id?: unknown } };
  try {
    parsed = JSON.parse(response.body) as typeof parsed;
  } catch {
    return [...problems, 'the error body is not JSON'];
  }
  if (Object.keys(parsed).join() !== 'error')
    problems.push(`keys ${Object.keys(parsed).join()}, not error alone`);
  const error = parsed.error ?? {};
  if (STATUS_BY_CODE[error.code as keyof typeof STATUS_BY_CODE] !== response.statusCode) {
    problems.push(`code ${String(error.code)} does not go with the status`);
  }
  if (typeof error.message !== 'string') problems.push('no message');
  if (error.request_id !== response.headers['x-request-id']) problems.push('request_id is not x-request-id');
  // An error never leaks internals.
  if (/\bat .+\.(js|ts):\d+|SQLITE_|SqliteError|node_modules/.test(response.body))
    problems.push('internals leak');
  return problems;
}

export function checkAnswer(response: Answer, method: string, context: () => string): void {
  const problems = answerProblems(response, method);
  if (problems.length === 0) return;
  expect(problems, `${context()}\n=> ${response.statusCode} ${response.body.slice(0, 300)}`).toEqual([]);
}

export interface Secrets {
  token: string;
  username: string;
  password: string;
  adminKey: string;
  scopedKey: string;
  dispensaryIds: string[];
  itemIds: string[];
}

/** The request for one case of one endpoint. */
export function requestFor(endpoint: Endpoint, secrets: Secrets) {
  const params = fc.record({
    id: pathParam(secrets.dispensaryIds),
    item_id: pathParam(secrets.itemIds),
    username: pathParam(['integrator', 'someone', 'fuzz-user']),
  });
  const credentials = {
    username: secrets.username,
    password: secrets.password,
    collective_token: secrets.token,
  };
  const bodyFor = (): fc.Arbitrary<string | Buffer | undefined> => {
    switch (endpoint.kind) {
      case 'form-a':
        return body(
          endpoint.path === '/inventory'
            ? { ...credentials, since: '2026-01-01T00:00:00Z' }
            : endpoint.path === '/changes'
              ? { ...credentials, after: '0000000000000001', limit: 10 }
              : endpoint.path === '/menu'
                ? { ...credentials, active: false }
                : credentials,
        );
      case 'admin':
        if (endpoint.path.endsWith('/lab-result'))
          return body({
            id: 'fuzz',
            license: { name: 'Fuzz Labs', code: 'L-1' },
            metric_list: [
              { lab_metric_id: '018NY6XC00LMB0JPRM2SF8F9F2', qom: 21.5, uom: 'percent' },
              { stub: 'limonene', qom: 'LT-LOD', uom: 'mg/g' },
            ],
          });
        if (endpoint.path.endsWith('/inventory'))
          return body([{ item_id: 3, unit: 'gram', amount: 1, stock: 5 }]);
        if (endpoint.path.endsWith('/menu') || endpoint.path.endsWith('/items'))
          return body(SAMPLE_MENU.slice(0, 2));
        if (endpoint.path.endsWith('/credentials')) return body({ username: 'fuzz-user' });
        if (endpoint.path === '/admin/v1/dispensaries')
          return body({ name: 'Fuzz Collective', city: 'Oakland' });
        return body({
          active: false,
          city: null,
          hours: { monday: { open: '09:00', close: '17:00', closed: false } },
        });
      default:
        return fc.oneof(fc.constant(undefined), body({}));
    }
  };
  const credentialHeaders = fc.record(
    {
      store: fc.oneof(
        { weight: 5, arbitrary: secret(secrets.token) },
        fc.tuple(secret(secrets.token), secret(secrets.token)),
      ),
      username: fc.oneof(
        { weight: 5, arbitrary: secret(secrets.username) },
        fc.tuple(secret(secrets.username), headerText(10)),
      ),
      password: fc.oneof(
        { weight: 5, arbitrary: secret(secrets.password) },
        fc.tuple(secret(secrets.password), secret(secrets.password)),
      ),
    },
    { requiredKeys: [] },
  );
  const authorization = fc.oneof(
    { weight: 5, arbitrary: fc.constant(`Bearer ${secrets.adminKey}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${secrets.scopedKey}`) },
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      `bearer ${secrets.adminKey}`,
      `Basic ${secrets.adminKey}`,
      `Bearer ${secrets.adminKey}x`,
    ),
    headerText(60),
    fc.constant<string[]>([`Bearer ${secrets.adminKey}`, `Bearer ${secrets.adminKey}`]),
  );
  return fc
    .record({
      params,
      trick: pathTrick,
      query: QUERIES,
      payload: bodyFor(),
      contentType,
      credentialHeaders,
      authorization: fc.option(authorization, { nil: undefined, freq: 6 }),
      extra: extraHeaders,
    })
    .map(
      ({
        params: values,
        trick,
        query,
        payload,
        contentType: type,
        credentialHeaders: creds,
        authorization: auth,
        extra,
      }) => {
        const path = endpoint.path
          .replace(':item_id', values.item_id)
          .replace(':delivery_id', values.item_id)
          .replace(':id', values.id)
          .replace(':username', values.username)
          .replace(':name', values.username);
        const headers: Record<string, string | string[]> = { ...extra };
        if (endpoint.kind === 'form-b') Object.assign(headers, creds);
        if (endpoint.kind === 'form-v1') {
          // The same secrets (or their mistakes) as HTTP Basic and Dispensary-Token.
          const one = (value: string | string[] | undefined) =>
            Array.isArray(value) ? value.join(',') : value;
          if (creds.store !== undefined) headers['dispensary-token'] = creds.store;
          if (creds.username !== undefined || creds.password !== undefined) {
            const pair = `${one(creds.username) ?? ''}:${one(creds.password) ?? ''}`;
            headers.authorization =
              typeof auth === 'string' && auth.startsWith('Basic') ? auth : basicAuthorization(pair);
          }
        }
        if (endpoint.kind === 'admin' && auth !== undefined) headers.authorization = auth;
        if (type !== undefined) headers['content-type'] = type;
        return { method: endpoint.method, url: `${trick(path)}${query}`, headers, payload };
      },
    );
}

export async function fuzzEndpoint(
  app: FastifyInstance,
  endpoint: Endpoint,
  secrets: Secrets,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(requestFor(endpoint, secrets), async (request) => {
      const response = await answerTo(app, {
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      });
      checkAnswer(response, request.method, () => describeRequest(request));
    }),
    { numRuns: RUNS, endOnFailure: true, reporter: shortReport },
  );
}

/** After the storm, the ordinary requests still work. */
export async function expectStillServing(runtime: TestRuntime, secrets: Secrets): Promise<void> {
  const health = await runtime.app.inject({ method: 'GET', url: '/healthz' });
  expect(health.statusCode).toBe(200);
  const list = await runtime.app.inject({
    method: 'GET',
    url: '/admin/v1/dispensaries',
    headers: { authorization: `Bearer ${secrets.adminKey}` },
  });
  expect(list.statusCode).toBe(200);
}

/**
 * A runtime like testRuntime()'s, with scrypt at its cheapest: most fuzz cases carry a wrong password,
 * and each pays a full (decoy) scrypt. The code path and the hash format are the real ones.
 */
export async function fuzzRuntime(): Promise<TestRuntime> {
  const fresh = await testDatabase();
  const runtime = await createRuntime(
    { ...DEFAULTS, ...UNLIMITED, database: fresh.address, databasePoolSize: 4 },
    { logger: false, scryptCost: { N: 16, r: 1, p: 1 } },
  );
  return {
    ...runtime,
    database: fresh.address,
    databaseKind: fresh.kind,
    seed: await seedRuntime(runtime, { dispensary: 'Fuzz Collective', username: 'integrator' }, SAMPLE_MENU),
    async close() {
      await runtime.close();
      await fresh.cleanup();
    },
  };
}

export async function prepare(): Promise<{ runtime: TestRuntime; secrets: Secrets }> {
  const runtime = await fuzzRuntime();
  const other = await runtime.services.dispensaries.create('Other Collective');
  const all = await adminKey(runtime, 'all');
  const scoped = await adminKey(runtime, `dispensary:${other.id}`);
  return {
    runtime,
    secrets: {
      token: runtime.seed.token,
      username: runtime.seed.username,
      password: runtime.seed.password,
      adminKey: all.key,
      scopedKey: scoped.key,
      dispensaryIds: [String(runtime.seed.dispensaryId), String(other.id)],
      itemIds: SAMPLE_MENU.map((item) => String(item.id)),
    },
  };
}

/**
 * Fuzzes `endpoints` on a database of their own: admin writes (rotating the token, deleting the
 * dispensary) would otherwise make the public endpoints' valid cases rare. The endpoints are fuzzed in
 * files of their own (public, sync-API reads, sync-API writes) so that Vitest's workers run them at once.
 */
export function fuzzEndpoints(group: string, endpoints: readonly Endpoint[]): void {
  describe(`fuzzing the ${group} endpoints (${RUNS} cases each)`, () => {
    let runtime: TestRuntime;
    let secrets: Secrets;
    beforeAll(async () => {
      ({ runtime, secrets } = await prepare());
    });
    afterAll(async () => {
      await runtime?.close();
    });

    for (const endpoint of endpoints) {
      it(`${endpoint.method} ${endpoint.path}`, { timeout: 120_000 }, async () => {
        await fuzzEndpoint(runtime.app, endpoint, secrets);
        await expectStillServing(runtime, secrets);
      });
    }
  });
}

/** The sync API's endpoints that read, and those that write. */
export const ADMIN_READS = ENDPOINTS.filter(
  (endpoint) => endpoint.kind === 'admin' && (endpoint.method === 'GET' || endpoint.method === 'HEAD'),
);
export const ADMIN_WRITES = ENDPOINTS.filter(
  (endpoint) => endpoint.kind === 'admin' && !ADMIN_READS.includes(endpoint),
);
