import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formBHeaders,
  INVALID_CREDENTIALS,
  rawHttp,
  rawRequest,
} from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../../helpers/runtime.js';

const HEADERS = ['store', 'username', 'password'] as const;

describe('GET /menu (Form B): errors', () => {
  let runtime: TestRuntime;
  let headers: Record<string, string>;
  const get = (requestHeaders: Record<string, string | string[]>, method: 'GET' | 'HEAD' = 'GET') =>
    runtime.app.inject({ method, url: '/menu', headers: requestHeaders });

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    headers = formBHeaders(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe('400: a missing header, named', () => {
    it.each(HEADERS)('%s', async (name) => {
      const { [name]: _dropped, ...rest } = headers;
      expectInvalid(await get(rest), [{ field: name, message: 'header is required' }]);
    });

    it('no headers at all: each named', async () => {
      expectInvalid(await get({}), [
        { field: 'store', message: 'header is required' },
        { field: 'username', message: 'header is required' },
        { field: 'password', message: 'header is required' },
      ]);
    });

    it('Form A field names as headers are not Form B headers', async () => {
      const { store, ...rest } = headers;
      expectInvalid(await get({ ...rest, collective_token: store! }), [
        { field: 'store', message: 'header is required' },
      ]);
    });

    it('credentials in the query string are not headers', async () => {
      const query = new URLSearchParams(headers).toString();
      const response = await runtime.app.inject({ method: 'GET', url: `/menu?${query}` });
      expectInvalid(response, [
        { field: 'store', message: 'header is required' },
        { field: 'username', message: 'header is required' },
        { field: 'password', message: 'header is required' },
      ]);
    });
  });

  describe('400: an over-long header, named', () => {
    it.each(HEADERS)('%s of 257 characters', async (name) => {
      expectInvalid(await get({ ...headers, [name]: 'x'.repeat(257) }), [
        { field: name, message: 'header must NOT have more than 256 characters' },
      ]);
    });

    it.each(HEADERS)('%s of 256 characters is not too long (and simply wrong)', async (name) => {
      const response = await get({ ...headers, [name]: 'x'.repeat(256) });
      if (name === 'store') expectInvalidToken(response);
      else expectInvalidCredentials(response);
    });

    it('every header over-long at once, each named', async () => {
      const long = 'y'.repeat(1000);
      expectInvalid(await get({ store: long, username: long, password: long }), [
        { field: 'store', message: 'header must NOT have more than 256 characters' },
        { field: 'username', message: 'header must NOT have more than 256 characters' },
        { field: 'password', message: 'header must NOT have more than 256 characters' },
      ]);
    });
  });

  describe('400: a repeated header', () => {
    it.each(HEADERS)('%s sent twice with the same value', async (name) => {
      const error = expectError(
        await get({ ...headers, [name]: [headers[name]!, headers[name]!] }),
        400,
        'invalid_request',
      );
      expect(error.message).toBe(`The header "${name}" was sent more than once; send it once.`);
    });

    it('store sent twice with different values', async () => {
      const error = expectError(
        await get({ ...headers, store: ['a', headers.store!] }),
        400,
        'invalid_request',
      );
      expect(error.message).toBe('The header "store" was sent more than once; send it once.');
    });

    it('a repeated header is refused before the credentials are checked', async () => {
      const error = expectError(
        await get({ store: 'bad', username: ['nobody', 'nobody'], password: 'wrong' }),
        400,
        'invalid_request',
      );
      expect(error.message).toBe('The header "username" was sent more than once; send it once.');
    });

    it('a repeated header that is not a credential is fine', async () => {
      const response = await get({ ...headers, accept: ['application/json', 'text/plain'] });
      expect(response.statusCode).toBe(200);
    });

    describe('over real HTTP', () => {
      let baseUrl: string;
      beforeAll(async () => {
        baseUrl = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
      });

      it.each(HEADERS)('%s on two header lines gets 400', async (name) => {
        const response = await rawRequest(baseUrl, {
          method: 'GET',
          path: '/menu',
          headers: HEADERS.map((header) => [
            header,
            header === name ? [headers[header]!, headers[header]!] : headers[header]!,
          ]),
        });
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        const body = JSON.parse(response.body);
        expect(body).toEqual({
          error: {
            code: 'invalid_request',
            message: `The header "${name}" was sent more than once; send it once.`,
            request_id: response.headers['x-request-id'],
          },
        });
      });

      it('the same header in two spellings of case gets 400', async () => {
        const response = await rawHttp(baseUrl, [
          'GET /menu HTTP/1.1',
          'Host: localhost',
          `Store: ${headers.store}`,
          `username: ${headers.username}`,
          `password: ${headers.password}`,
          `STORE: ${headers.store}`,
        ]);
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(JSON.parse(response.body)).toEqual({
          error: {
            code: 'invalid_request',
            message: 'The header "store" was sent more than once; send it once.',
            request_id: response.headers['x-request-id'],
          },
        });
      });

      it('a single set of headers is answered 200 over the same server', async () => {
        const response = await rawRequest(baseUrl, {
          method: 'GET',
          path: '/menu',
          headers: Object.entries(headers),
        });
        expect(response.status).toBe(200);
        expect(JSON.parse(response.body)).toHaveLength(3);
      });
    });
  });

  describe('401: wrong credentials', () => {
    it('a wrong password', async () => {
      expectInvalidCredentials(await get({ ...headers, password: 'wrong-password' }));
    });

    it('an unknown username', async () => {
      expectInvalidCredentials(await get({ ...headers, username: 'nobody' }));
    });

    it('empty username and password', async () => {
      expectInvalidCredentials(await get({ ...headers, username: '', password: '' }));
    });

    it('unknown username and wrong password give byte-identical code and message', async () => {
      const wrongPassword = (await get({ ...headers, password: 'wrong-password' })).json();
      const unknownUser = (await get({ ...headers, username: 'nobody' })).json();
      const strip = (error: { code: string; message: string }) =>
        JSON.stringify({ code: error.code, message: error.message });
      expect(strip(wrongPassword.error)).toBe(strip(unknownUser.error));
      expect(strip(wrongPassword.error)).toBe(JSON.stringify(INVALID_CREDENTIALS));
    });

    it('the same answer as Form A gives', async () => {
      const formB = (await get({ ...headers, password: 'wrong' })).json();
      const formA = (
        await runtime.app.inject({
          method: 'POST',
          url: '/menu',
          payload: { username: headers.username, password: 'wrong', collective_token: headers.store },
        })
      ).json();
      expect({ ...formB.error, request_id: '' }).toEqual({ ...formA.error, request_id: '' });
    });
  });

  describe('403: wrong dispensary token', () => {
    it('an unknown token', async () => {
      expectInvalidToken(await get({ ...headers, store: 'not-a-token' }));
    });

    it('an empty token', async () => {
      expectInvalidToken(await get({ ...headers, store: '' }));
    });

    it('the token in another case', async () => {
      expectInvalidToken(await get({ ...headers, store: headers.store!.toUpperCase() }));
    });

    it('the token and credentials swapped', async () => {
      expectInvalidCredentials(
        await get({ store: headers.username!, username: headers.store!, password: headers.password! }),
      );
    });
  });

  describe('HEAD answers errors with the status and headers only', () => {
    it.each([
      ['a missing header', { username: 'a', password: 'b' }, 400],
      ['wrong credentials', { store: 'a', username: 'b', password: 'c' }, 401],
      ['a wrong token', { store: 'a' }, 403],
    ] as const)('%s', async (_label, overrides, status) => {
      const requestHeaders = status === 400 ? overrides : { ...headers, ...overrides };
      const response = await get(requestHeaders as Record<string, string>, 'HEAD');
      expect(response.statusCode).toBe(status);
      expect(response.body).toBe('');
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-request-id']).toBeTruthy();
    });
  });

  describe('405: another method', () => {
    it.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)(
      '%s /menu with Form B headers',
      async (method) => {
        const response = await runtime.app.inject({ method, url: '/menu', headers });
        const error = expectError(response, 405, 'method_not_allowed');
        expect(response.headers.allow).toBe('GET, HEAD, POST');
        expect(error.message).toBe(`${method} is not allowed on /menu. Use GET, HEAD, POST.`);
      },
    );
  });

  describe('checks run in order: shape, then credentials, then token', () => {
    it('a missing header and wrong credentials: 400', async () => {
      expectInvalid(await get({ username: 'nobody', password: 'wrong' }), [
        { field: 'store', message: 'header is required' },
      ]);
    });

    it('an over-long header, wrong credentials and a wrong token: 400', async () => {
      expectInvalid(await get({ store: 'bad', username: 'nobody', password: 'p'.repeat(257) }), [
        { field: 'password', message: 'header must NOT have more than 256 characters' },
      ]);
    });

    it('wrong credentials and a wrong token: 401', async () => {
      expectInvalidCredentials(await get({ store: 'bad', username: 'nobody', password: 'wrong' }));
      expectInvalidCredentials(await get({ ...headers, store: 'bad', password: 'wrong' }));
    });

    it('right credentials and a wrong token: 403', async () => {
      expectInvalidToken(await get({ ...headers, store: 'bad' }));
    });
  });
});
