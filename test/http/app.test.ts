import Database from 'better-sqlite3';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, formABody, formBHeaders, rawHttp, UUID } from '../helpers/http.js';
import { onSqlite, SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

const INTERNAL_ERROR = 'Something went wrong on our side. Retry, and report the request id if it persists.';

describe('HTTP layer', () => {
  let runtime: TestRuntime;
  const inject = (options: InjectOptions) => runtime.app.inject(options);

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    // Routes that fail the way a bug would, registered before the app is first used.
    runtime.app.get('/test/throws-error', async () => {
      const error = new Error('kaboom: secret internals at /srv/app/src/thing.ts:42');
      error.stack = `Error: kaboom\n    at secretFunction (/srv/app/src/secret.ts:1:1)`;
      throw error;
    });
    runtime.app.get('/test/throws-string', async () => {
      throw 'a plain string with internals';
    });
    runtime.app.get('/test/throws-upstream', async () => {
      throw Object.assign(new Error('upstream said no'), { statusCode: 502 });
    });
  });
  afterAll(() => runtime.close());

  /** One request of every kind the server answers, by the status it must get. */
  function everyKindOfRequest(): [number, InjectOptions][] {
    const body = formABody(runtime.seed);
    const headers = formBHeaders(runtime.seed);
    return [
      [200, { method: 'POST', url: '/menu', payload: body }],
      [200, { method: 'GET', url: '/menu', headers }],
      [200, { method: 'HEAD', url: '/menu', headers }],
      [400, { method: 'POST', url: '/menu', payload: { ...body, active: 'yes' } }],
      [400, { method: 'POST', url: '/menu', headers: { 'content-type': 'application/json' }, payload: '{' }],
      [400, { method: 'GET', url: '/menu', headers: { ...headers, store: [headers.store!, 'x'] } }],
      [400, { method: 'GET', url: '/menu%zz' }],
      [401, { method: 'POST', url: '/menu', payload: { ...body, password: 'wrong' } }],
      [401, { method: 'GET', url: '/menu', headers: { ...headers, password: 'wrong' } }],
      [403, { method: 'POST', url: '/menu', payload: { ...body, collective_token: 'wrong' } }],
      [403, { method: 'GET', url: '/menu', headers: { ...headers, store: 'wrong' } }],
      [404, { method: 'GET', url: '/nowhere' }],
      [405, { method: 'DELETE', url: '/menu' }],
      [
        413,
        {
          method: 'POST',
          url: '/menu',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ ...body, padding: 'x'.repeat(70_000) }),
        },
      ],
      [
        415,
        { method: 'POST', url: '/menu', headers: { 'content-type': 'application/xml' }, payload: '<a/>' },
      ],
      [500, { method: 'GET', url: '/test/throws-error' }],
    ];
  }

  describe('404: an unknown path', () => {
    it.each([
      ['GET', '/nowhere'],
      ['POST', '/nowhere'],
      ['GET', '/menu/'],
      ['GET', '/menus'],
      ['POST', '/MENU'],
      ['GET', '/menu/1'],
      ['GET', '/nowhere?store=x'],
    ] as const)('%s %s is a JSON 404', async (method, url) => {
      const error = expectError(await inject({ method, url }), 404, 'not_found');
      const path = url.split('?')[0];
      expect(error.message).toBe(
        `There is no ${path}. The menu is at POST /menu (Form A) or GET /menu (Form B).`,
      );
    });

    it('HEAD of an unknown path is a 404 without a body', async () => {
      const response = await inject({ method: 'HEAD', url: '/nowhere' });
      expect(response.statusCode).toBe(404);
      expect(response.body).toBe('');
      expect(response.headers['x-request-id']).toMatch(UUID);
    });
  });

  describe('405: a known path with another method', () => {
    it.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)(
      '%s /menu names the allowed methods',
      async (method) => {
        const response = await inject({ method, url: '/menu' });
        const error = expectError(response, 405, 'method_not_allowed');
        expect(response.headers.allow).toBe('GET, HEAD, POST');
        expect(error.message).toBe(`${method} is not allowed on /menu. Use GET, HEAD, POST.`);
      },
    );

    it('also with a query string', async () => {
      const response = await inject({ method: 'PUT', url: '/menu?x=1' });
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.allow).toBe('GET, HEAD, POST');
    });

    it('an unknown path has no Allow header', async () => {
      const response = await inject({ method: 'DELETE', url: '/nowhere' });
      expectError(response, 404, 'not_found');
      expect(response.headers.allow).toBeUndefined();
    });
  });

  describe('400: a malformed URL', () => {
    it.each(['/menu%zz', '/%E0%A4%A', '/%', '/menu%'])('%s is a JSON 400', async (url) => {
      const error = expectError(await inject({ method: 'GET', url }), 400, 'invalid_request');
      expect(error.message).toBe('The URL is malformed (a bad percent-encoding?). Check the request path.');
    });

    it('also over real HTTP', async () => {
      const served = await testRuntime();
      try {
        const baseUrl = await served.app.listen({ host: '127.0.0.1', port: 0 });
        const response = await rawHttp(baseUrl, ['GET /men%u HTTP/1.1', 'Host: localhost']);
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.headers['x-request-id']).toMatch(UUID);
        expect(JSON.parse(response.body)).toEqual({
          error: {
            code: 'invalid_request',
            message: 'The URL is malformed (a bad percent-encoding?). Check the request path.',
            request_id: response.headers['x-request-id'],
          },
        });
      } finally {
        await served.close();
      }
    });
  });

  describe('x-request-id', () => {
    it('is on every response, success or error, and unique', async () => {
      const ids = new Set<string>();
      for (const [status, options] of everyKindOfRequest()) {
        const response = await inject(options);
        expect(response.statusCode, `${options.method} ${options.url}`).toBe(status);
        const id = response.headers['x-request-id'];
        expect(id).toMatch(UUID);
        ids.add(String(id));
        if (status >= 400 && options.method !== 'HEAD') expect(response.json().error.request_id).toBe(id);
      }
      expect(ids.size).toBe(everyKindOfRequest().length);
    });

    it.each(['abc-123', 'trace.id:42_x', 'A', 'a'.repeat(64), '7f3c8d4e-11a5-4ea6-a21e-ffe191aeceac'])(
      'a safe client id %j is echoed, on success and on error',
      async (id) => {
        const ok = await inject({
          method: 'GET',
          url: '/menu',
          headers: { ...formBHeaders(runtime.seed), 'x-request-id': id },
        });
        expect(ok.statusCode).toBe(200);
        expect(ok.headers['x-request-id']).toBe(id);
        const failed = await inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': id } });
        expect(expectError(failed, 404, 'not_found').request_id).toBe(id);
        const malformed = await inject({ method: 'GET', url: '/menu%zz', headers: { 'x-request-id': id } });
        expect(expectError(malformed, 400, 'invalid_request').request_id).toBe(id);
      },
    );

    it.each([
      ['with a space', 'abc 123'],
      ['with markup', '<script>alert(1)</script>'],
      ['with quotes', '"quoted"'],
      ['over 64 characters', 'a'.repeat(65)],
      ['empty', ''],
      ['with non-ASCII bytes', Buffer.from('ıd-😀', 'utf8').toString('latin1')],
      ['with a slash', 'a/b'],
    ])('an unsafe client id (%s) is replaced by our own', async (_label, id) => {
      const response = await inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': id } });
      const error = expectError(response, 404, 'not_found');
      expect(error.request_id).toMatch(UUID);
      expect(response.headers['x-request-id']).toMatch(UUID);
      expect(response.body).not.toContain(id || '""');
    });

    it('a repeated x-request-id header is replaced by our own', async () => {
      const response = await inject({
        method: 'GET',
        url: '/nowhere',
        headers: { 'x-request-id': ['first', 'second'] },
      });
      expect(expectError(response, 404, 'not_found').request_id).toMatch(UUID);
    });
  });

  describe('error bodies', () => {
    it('every error has exactly {error: {code, message, request_id[, problems]}}, as JSON', async () => {
      const codes: Record<number, string> = {
        400: 'invalid_request',
        401: 'invalid_credentials',
        403: 'invalid_token',
        404: 'not_found',
        405: 'method_not_allowed',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
        500: 'internal_error',
      };
      const seen = new Set<number>();
      for (const [status, options] of everyKindOfRequest()) {
        if (status < 400 || options.method === 'HEAD') continue;
        const error = expectError(await inject(options), status, codes[status]!);
        if (error.problems) {
          for (const problem of error.problems)
            expect(Object.keys(problem).sort()).toEqual(['field', 'message']);
        }
        seen.add(status);
      }
      expect([...seen].sort()).toEqual([400, 401, 403, 404, 405, 413, 415, 500]);
    });

    it('problems appear only for field-level failures', async () => {
      const withProblems = await inject({
        method: 'POST',
        url: '/menu',
        payload: { ...formABody(runtime.seed), username: 1 },
      });
      expect(expectError(withProblems, 400, 'invalid_request').problems).toEqual([
        { field: 'username', message: 'field must be string' },
      ]);
      const without = await inject({ method: 'GET', url: '/nowhere' });
      expect(expectError(without, 404, 'not_found')).not.toHaveProperty('problems');
    });
  });

  describe('500: a bug', () => {
    function expectOpaque500(response: LightMyRequestResponse, hidden: string[]): void {
      const error = expectError(response, 500, 'internal_error');
      expect(error.message).toBe(INTERNAL_ERROR);
      for (const text of [...hidden, 'stack', '    at ', '.ts:', 'Error:']) {
        expect(response.body).not.toContain(text);
        expect(JSON.stringify(response.headers)).not.toContain(text);
      }
    }

    it('a thrown Error is a bare 500: no message, no stack', async () => {
      expectOpaque500(await inject({ method: 'GET', url: '/test/throws-error' }), [
        'kaboom',
        'secret',
        '/srv/app',
      ]);
    });

    it('a thrown non-Error is a bare 500 too', async () => {
      expectOpaque500(await inject({ method: 'GET', url: '/test/throws-string' }), ['plain string']);
    });

    it('an error carrying a 5xx status is a bare 500 too', async () => {
      expectOpaque500(await inject({ method: 'GET', url: '/test/throws-upstream' }), ['upstream']);
    });

    // The table is dropped behind the server's back through the SQLite file itself.
    it.skipIf(!onSqlite)(
      'a broken database is a bare 500 with no SQL in it, and the process keeps answering',
      async () => {
        const { dispensaries, menus } = runtime.services;
        const unread = await dispensaries.create('Never Read Collective');
        await menus.replace(unread.id, menus.validate(SAMPLE_MENU));
        const body = formABody(runtime.seed);
        // Warm the seed dispensary's menu so that it is answered from memory afterwards.
        expect((await inject({ method: 'POST', url: '/menu', payload: body })).statusCode).toBe(200);
        const outside = new Database(runtime.database);
        try {
          outside.exec('DROP TABLE price_entries');
        } finally {
          outside.close();
        }
        const response = await inject({
          method: 'POST',
          url: '/menu',
          payload: { ...body, collective_token: unread.token },
        });
        expectOpaque500(response, ['SQLITE', 'no such table', 'price_entries', 'select', 'SELECT']);
        // The error is not remembered, and other requests still work.
        expect((await inject({ method: 'POST', url: '/menu', payload: body })).statusCode).toBe(200);
        expect((await inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
      },
    );
  });
});
