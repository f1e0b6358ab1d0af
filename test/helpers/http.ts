import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { expect } from 'vitest';
import { DEFAULTS, type ServerConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { basicAuthorization } from './basic-auth.js';
import { contractCheck } from './contract.js';
import { testDatabase } from './database.js';
import { GENEROUS_LIMITS, type Seed, seedRuntime, TEST_SCRYPT } from './runtime.js';

/** What every error body looks like: exactly these keys, `problems` only for field-level failures. */
export interface ErrorPayload {
  code: string;
  message: string;
  request_id: string;
  problems?: { field: string; message: string }[];
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The one 401 answer: wrong password, unknown username and revoked credential all get exactly this. */
export const INVALID_CREDENTIALS = {
  code: 'invalid_credentials',
  message: 'The username or password is wrong. Check the credential the operator issued to you.',
} as const;

export const INVALID_TOKEN = {
  code: 'invalid_token',
  message:
    'The dispensary token is not valid (unknown, or replaced by a newer one and past its grace period). Ask the dispensary for its current token.',
} as const;

/**
 * Asserts a JSON error response: the status, the code, the exact body shape, the JSON content type,
 * and that `request_id` is the `x-request-id` header. Returns the `error` object for further checks.
 */
export function expectError(response: LightMyRequestResponse, status: number, code: string): ErrorPayload {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = response.json() as { error: ErrorPayload };
  expect(Object.keys(body)).toEqual(['error']);
  const keys = Object.keys(body.error).sort();
  expect(keys).toEqual(
    'problems' in body.error
      ? ['code', 'message', 'problems', 'request_id']
      : ['code', 'message', 'request_id'],
  );
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(typeof body.error.request_id).toBe('string');
  expect(body.error.request_id).toBe(response.headers['x-request-id']);
  return body.error;
}

/** A 400 naming exactly these problems, each of which is also named in the message. */
export function expectInvalid(
  response: LightMyRequestResponse,
  problems: { field: string; message: string }[],
): ErrorPayload {
  const error = expectError(response, 400, 'invalid_request');
  expect(error.problems).toEqual(problems);
  for (const problem of problems) expect(error.message).toContain(`${problem.field} ${problem.message}`);
  return error;
}

export function expectInvalidCredentials(response: LightMyRequestResponse): void {
  const error = expectError(response, 401, INVALID_CREDENTIALS.code);
  expect(error.message).toBe(INVALID_CREDENTIALS.message);
}

export function expectInvalidToken(response: LightMyRequestResponse): void {
  const error = expectError(response, 403, INVALID_TOKEN.code);
  expect(error.message).toBe(INVALID_TOKEN.message);
}

/** The Form A request body for a seed. */
export function formABody(seed: Pick<Seed, 'username' | 'password' | 'token'>): Record<string, unknown> {
  return { username: seed.username, password: seed.password, collective_token: seed.token };
}

/** The Form B request headers for a seed. */
export function formBHeaders(seed: Pick<Seed, 'username' | 'password' | 'token'>): Record<string, string> {
  return { store: seed.token, username: seed.username, password: seed.password };
}

/** Form v1's headers: the credential as HTTP Basic, the token in Dispensary-Token. */
export function formV1Headers(seed: Pick<Seed, 'username' | 'password' | 'token'>): Record<string, string> {
  return {
    authorization: basicAuthorization(`${seed.username}:${seed.password}`),
    'dispensary-token': seed.token,
  };
}

/** What `inject` takes for a Form A request of `url` with a seed's credentials and token. */
export function formARequest(seed: Pick<Seed, 'username' | 'password' | 'token'>, url = '/menu') {
  return { method: 'POST' as const, url, payload: formABody(seed) };
}

/** The same for a Form B request. */
export function formBRequest(seed: Pick<Seed, 'username' | 'password' | 'token'>, url = '/menu') {
  return { method: 'GET' as const, url, headers: formBHeaders(seed) };
}

/** POSTs `fields` to `url` as a real HTML form does: urlencoded, every value a string. */
export function postForm(
  app: Pick<Runtime['app'], 'inject'>,
  url: string,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** SQL and LIKE metacharacters, comment markers, quotes, NUL and friends. */
export const SQL_METACHARACTERS: readonly string[] = [
  "' OR 1=1 --",
  "' OR '1'='1",
  '" OR ""="',
  '"; DROP TABLE items; --',
  "'; DROP TABLE credentials; --",
  "1; DELETE FROM dispensaries WHERE '1'='1",
  "') UNION SELECT username, password_hash FROM credentials --",
  '%',
  '_',
  '%_%',
  '*',
  '\\',
  '\\x00',
  'a\0b',
  '\0',
  '/* comment */',
  '`id`',
  '$1',
  '?',
  ':name',
];

/** Text that is easy to get wrong: emoji, right-to-left, combining marks, zero-width characters. */
export const UNICODE_VALUES: readonly string[] = [
  '😀🌿🔥',
  'مرحبا بالعالم',
  'שלום\u200f',
  'e\u0301\u0301\u0301',
  'Z̴͉̈a̷̡̛l̶̰̎g̵̞̈́o̴̺͝',
  'zero\u200bwidth\ufeff',
  '\ud83d\ude00\u202eevil',
  'İıß',
];

/**
 * Header values are Latin-1 on the wire: a client that sends UTF-8 text sends these bytes, which Node
 * reads back as one Latin-1 character each.
 */
export function asHeaderBytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A request over real HTTP, for what `inject` cannot express exactly. Header values given as arrays
 * are sent as separate header lines, the way a client repeating a header does.
 */
export function rawRequest(
  baseUrl: string,
  options: { method: string; path: string; headers?: [string, string | string[]][]; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(options.path, baseUrl), { method: options.method, agent: false });
    for (const [name, value] of options.headers ?? []) request.setHeader(name, value);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

/**
 * Sends exactly these request lines over a socket (for what no HTTP client will send, such as one
 * header name in two spellings) and reads the response until the server closes the connection.
 */
export function rawHttp(baseUrl: string, lines: string[]): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${[...lines, 'Connection: close'].join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: IncomingHttpHeaders = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

/** Every header value and the body of a response, as one string to search for leaked secrets. */
export function everythingSent(response: LightMyRequestResponse): string {
  return `${JSON.stringify(response.headers)}\n${response.body}`;
}

/** A runtime like `testRuntime()`, whose server logs every line (level trace) into `lines`. */
export async function loggedTestRuntime(
  options: { menu?: unknown[]; config?: Partial<ServerConfig> } = {},
): Promise<{ runtime: Runtime; database: string; seed: Seed; lines: string[]; close(): Promise<void> }> {
  const lines: string[] = [];
  const database = await testDatabase();
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  const runtime = await createRuntime(
    { ...DEFAULTS, database: database.address, ...GENEROUS_LIMITS, ...options.config },
    { logger, scryptCost: TEST_SCRYPT, contractCheck },
  );
  return {
    runtime,
    database: database.address,
    lines,
    seed: await seedRuntime(
      runtime,
      { dispensary: 'Logged Collective', username: 'logged-integrator' },
      options.menu,
    ),
    async close() {
      await runtime.close();
      await database.cleanup();
    },
  };
}
