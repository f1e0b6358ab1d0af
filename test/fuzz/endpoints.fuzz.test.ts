import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_BY_CODE } from '../../src/http/pipeline/errors.js';
import { UNLIMITED } from '../helpers/admin.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';
import {
  DOCUMENTED,
  ENDPOINTS,
  fuzzEndpoints,
  NOT_FUZZED,
  prepare,
  type Secrets,
  SOCKET_RUNS,
  shortReport,
} from './fuzz-kit.js';

/*
 * The public endpoints fuzzed through app.inject (test/fuzz/fuzz-kit.ts says what every answer must
 * be), that no documented operation is left out, and a run over a real socket that sends what inject
 * cannot. The sync API's endpoints are fuzzed by sync-api-reads.fuzz.test.ts and
 * sync-api-writes.fuzz.test.ts, beside this file, so that the three run at once.
 */
fuzzEndpoints(
  'public',
  ENDPOINTS.filter((endpoint) => endpoint.kind !== 'admin'),
);

describe('every endpoint is fuzzed', () => {
  it('the OpenAPI document lists no operation missing from ENDPOINTS', async () => {
    const runtime = await testRuntime({ config: UNLIMITED });
    try {
      const response = await runtime.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(response.statusCode).toBe(200);
      const document = response.json() as { paths: Record<string, Record<string, unknown>> };
      const known = new Set(ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.path}`));
      const missing: string[] = [];
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const method of Object.keys(operations)) {
          if (!['get', 'head', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          const route = path.replace(/\{([^}]+)\}/g, ':$1');
          const key = `${method.toUpperCase()} ${route}`;
          // HEAD runs GET's handler without the body: fuzzing GET covers it (HEAD /menu is fuzzed too).
          if (method === 'head' && known.has(`GET ${route}`)) continue;
          if (!known.has(key) && !NOT_FUZZED.has(key)) missing.push(key);
        }
      }
      expect(missing).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});

/** Sends raw bytes and reads until the server closes or `timeoutMs`; resolves with what came back. */
function rawExchange(port: number, bytes: Buffer, timeoutMs = 3_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while we are still writing a request it refused.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}

describe(`fuzzing over a real socket (${SOCKET_RUNS} cases)`, () => {
  let runtime: TestRuntime;
  let secrets: Secrets;
  let port: number;
  beforeAll(async () => {
    ({ runtime, secrets } = await prepare());
    await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    port = (runtime.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await runtime?.close();
  });

  it('raw request lines, header bytes and bodies get documented statuses with JSON errors', {
    timeout: 120_000,
  }, async () => {
    const byte = fc.integer({ min: 0, max: 255 });
    const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);
    const rawHeader = fc.oneof(
      fc
        .tuple(token, fc.uint8Array({ maxLength: 60 }))
        .map(([name, value]) =>
          Buffer.concat([Buffer.from(`${name}: `), Buffer.from(value.filter((b) => b !== 10 && b !== 13))]),
        ),
      fc
        .constantFrom(
          `store: ${secrets.token}`,
          `username: ${secrets.username}`,
          `password: ${secrets.password}`,
          `Store: ${secrets.token}`,
          'content-type: application/json',
          'transfer-encoding: chunked',
          'content-length: 5',
          'content-length: -1',
          'content-length: 99999999999999999999',
          'expect: 100-continue',
          'connection: upgrade',
          `authorization: Bearer ${secrets.adminKey}`,
          'host: evil.example',
          'X-Request-Id: \u00ff\u00fe',
        )
        .map((line) => Buffer.from(line, 'latin1')),
    );
    const target = fc.oneof(
      fc.constantFrom(
        '/menu',
        '/menu?since=%ff',
        '//menu',
        '/%2e%2e/menu',
        '/menu/../admin/v1/credentials',
        '/admin/v1/dispensaries/1/../../v1/credentials',
        '/admin/v1/dispensaries/%00',
        '*',
        'http://evil.example/menu',
        '/\u00ff\u00fe',
        '/menu%',
        `/${'a'.repeat(9000)}`,
      ),
      fc
        .uint8Array({ minLength: 1, maxLength: 40 })
        .map((bytes) => `/${Buffer.from(bytes.filter((b) => b > 32 && b !== 127)).toString('latin1')}`),
    );
    const method = fc.constantFrom(
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'HEAD',
      'OPTIONS',
      'TRACE',
      'get',
      'BREW',
      '',
    );
    const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 extra', '');
    const requestBytes = fc.oneof(
      {
        weight: 5,
        arbitrary: fc
          .record({
            method,
            target,
            version,
            headers: fc.array(rawHeader, { maxLength: 6 }),
            body: fc.uint8Array({ maxLength: 200 }),
          })
          .map(({ method: verb, target: path, version: http, headers, body: payload }) =>
            Buffer.concat([
              Buffer.from(`${verb} ${path} ${http}\r\nHost: 127.0.0.1\r\n`, 'latin1'),
              ...headers.flatMap((header) => [header, Buffer.from('\r\n')]),
              Buffer.from(`Content-Length: ${payload.length}\r\nConnection: close\r\n\r\n`),
              Buffer.from(payload),
            ]),
          ),
      },
      fc.array(byte, { maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );

    await fc.assert(
      fc.asyncProperty(requestBytes, async (bytes) => {
        // An interim 100 Continue (for `Expect: 100-continue`) comes before the real answer.
        const answer = (await rawExchange(port, bytes)).replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
        const context = `sent: ${JSON.stringify(bytes.toString('latin1').slice(0, 400))}\ngot: ${answer.slice(0, 400)}`;
        if (answer === '') return; // the server may close a connection that is not HTTP at all
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1]);
        expect(DOCUMENTED.has(status), context).toBe(true);
        if (status >= 400) {
          const bodyText = answer.slice(answer.indexOf('\r\n\r\n') + 4);
          const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
          // Chunked or HEAD answers aside, the body of an error is the JSON error.
          if (!head.includes('transfer-encoding: chunked') && bodyText.length > 0) {
            expect(head, context).toContain('content-type: application/json; charset=utf-8');
            const parsed = JSON.parse(bodyText) as { error: { code: string } };
            expect(STATUS_BY_CODE[parsed.error.code as keyof typeof STATUS_BY_CODE], context).toBe(status);
          }
        }
      }),
      { numRuns: SOCKET_RUNS, endOnFailure: true, reporter: shortReport },
    );
    // The process is alive and serving.
    const alive = await rawExchange(
      port,
      Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    expect(alive).toMatch(/^HTTP\/1\.1 200/);
    expect((await runtime.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
