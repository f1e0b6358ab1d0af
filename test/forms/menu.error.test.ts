import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formABody,
  INVALID_CREDENTIALS,
  rawHttp,
  rawRequest,
} from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { credentialCases } from './credential-cases.js';
import { FORM_DRIVERS, listening, postAsIs } from './driver.js';

const NOT_JSON =
  'The request body is not valid JSON. Send a JSON object such as {"username": "...", "password": "...", "collective_token": "..."}.';
const NOT_AN_OBJECT = { field: 'body', message: 'must be a JSON object' };
const SECRET_FIELDS = ['username', 'password', 'collective_token'] as const;
const HEADERS = ['store', 'username', 'password'] as const;

describe.each(FORM_DRIVERS)('$id: /menu errors', (form) => {
  let runtime: TestRuntime;
  let good: Record<string, string>;
  // The form-specific cases below call the credentials by their form's name: a body, or headers.
  let body: Record<string, unknown>;
  let headers: Record<string, string>;
  const send = (credentials: Record<string, unknown>) => form.send(runtime, '/menu', { credentials });
  const cases = credentialCases({ form, send, good: () => good, runtime: () => runtime });
  /** Form A: a body as it is, with its content type. */
  const post = (payload: unknown, contentType?: string) => postAsIs(runtime, '/menu', payload, contentType);
  /** Form B: headers as they are (a list is sent as a repeated header), by GET or HEAD. */
  const get = (requestHeaders: Record<string, string | string[]>, method: 'GET' | 'HEAD' = 'GET') =>
    runtime.app.inject({ method, url: '/menu', headers: requestHeaders });

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    good = form.credentials(runtime.seed);
    body = good;
    headers = good;
  });
  afterAll(() => runtime.close());

  describe(`${form.title('/menu')}: 400, a missing or over-long credential, named`, () => {
    cases.itNamesMissingOrLong();

    it.each(form.secrets)('%s of 256 characters is not too long (and simply wrong)', async (name) => {
      const response = await send({ ...good, [name]: 'x'.repeat(256) });
      if (name === form.token) expectInvalidToken(response);
      else expectInvalidCredentials(response);
    });
  });

  describe(`${form.title('/menu')}: 401, wrong credentials`, () => {
    cases.itRefusesWrongCredentials();

    it('empty username and password', async () => {
      expectInvalidCredentials(await send({ ...good, username: '', password: '' }));
    });

    it('unknown username and wrong password give byte-identical code and message', async () => {
      const wrongPassword = (await send({ ...good, password: 'wrong-password' })).json();
      const unknownUser = (await send({ ...good, username: 'nobody' })).json();
      expect(wrongPassword.error.request_id).not.toBe(unknownUser.error.request_id);
      const strip = (error: { code: string; message: string }) =>
        JSON.stringify({ code: error.code, message: error.message });
      expect(strip(wrongPassword.error)).toBe(strip(unknownUser.error));
      expect(strip(wrongPassword.error)).toBe(JSON.stringify(INVALID_CREDENTIALS));
    });
  });

  describe(`${form.title('/menu')}: 403, wrong dispensary token`, () => {
    it('an unknown token', async () => {
      expectInvalidToken(await send({ ...good, [form.token]: 'not-a-token' }));
    });

    it('an empty token', async () => {
      expectInvalidToken(await send({ ...good, [form.token]: '' }));
    });
  });

  if (form.id === 'a') {
    describe(form.title('/menu'), () => {
      describe('400: malformed JSON', () => {
        it.each([
          ['an unterminated object', '{"username": '],
          ['a trailing comma', '{"username": "a",}'],
          ['single quotes', "{'username': 'a'}"],
          ['NaN', '{"active": NaN}'],
          ['an unterminated array', '[1, 2'],
          ['only whitespace', '   '],
          ['an empty body', ''],
          ['a NUL byte', '\0'],
          ['a comment', '{"username": "a" /* x */}'],
        ])('%s', async (_label, text) => {
          const error = expectError(await post(text), 400, 'invalid_request');
          expect(error.message).toBe(NOT_JSON);
          expect(error).not.toHaveProperty('problems');
        });

        it('also when JSON is sent as text/plain (what some clients label it)', async () => {
          const error = expectError(await post('{"username": ', 'text/plain'), 400, 'invalid_request');
          expect(error.message).toBe(NOT_JSON);
        });

        it('also when JSON is sent as a form (what curl -d labels it)', async () => {
          const error = expectError(
            await post('{"username": ', 'application/x-www-form-urlencoded'),
            400,
            'invalid_request',
          );
          expect(error.message).toBe(NOT_JSON);
        });
      });

      describe('400: a body that is JSON but not an object', () => {
        it.each([
          ['an array', '[]'],
          ['an array of the fields', '[{"username": "a"}]'],
          ['a string', '"username"'],
          ['a number', '42'],
          ['null', 'null'],
          ['true', 'true'],
        ])('%s', async (_label, text) => {
          expectInvalid(await post(text), [NOT_AN_OBJECT]);
        });

        it('no body at all and no content type', async () => {
          expectInvalid(await runtime.app.inject({ method: 'POST', url: '/menu' }), [NOT_AN_OBJECT]);
        });

        it('plain text that is neither JSON nor a form', async () => {
          const error = expectError(await post('hello', 'text/plain'), 400, 'invalid_request');
          expect(error.message).toBe(
            'The request body is neither a JSON object nor a urlencoded form. Send a JSON object such as {"username": "...", "password": "...", "collective_token": "..."}.',
          );
        });
      });

      describe('400: a missing field, named', () => {
        it('a missing field in a urlencoded form', async () => {
          const form = new URLSearchParams({ username: 'a', collective_token: 'c' }).toString();
          expectInvalid(await post(form, 'application/x-www-form-urlencoded'), [
            { field: 'password', message: 'field is required' },
          ]);
        });

        it('a field spelled in another case is not the field', async () => {
          const { username, ...rest } = body;
          expectInvalid(await post({ ...rest, Username: username }), [
            { field: 'username', message: 'field is required' },
          ]);
        });
      });

      describe('400: a wrongly typed field, named (never coerced)', () => {
        const wrongStrings: [string, unknown][] = [
          ['a number', 12345],
          ['zero', 0],
          ['a boolean', true],
          ['null', null],
          ['an array', ['a']],
          ['an empty array', []],
          ['an object', { value: 'a' }],
        ];
        for (const field of SECRET_FIELDS) {
          it.each(wrongStrings)(`${field} as %s`, async (_label, value) => {
            expectInvalid(await post({ ...body, [field]: value }), [
              { field, message: 'field must be string' },
            ]);
          });
        }

        it.each([
          ['the string "false"', 'false'],
          ['the string "true"', 'true'],
          ['an empty string', ''],
          ['0', 0],
          ['1', 1],
          ['null', null],
          ['an array', [false]],
          ['an object', {}],
        ])('active as %s', async (_label, value) => {
          expectInvalid(await post({ ...body, active: value }), [
            { field: 'active', message: 'field must be boolean' },
          ]);
        });

        it('active=yes in a urlencoded form (only true and false are booleans there)', async () => {
          const form = new URLSearchParams({ ...(body as Record<string, string>), active: 'yes' }).toString();
          expectInvalid(await post(form, 'application/x-www-form-urlencoded'), [
            { field: 'active', message: 'field must be boolean' },
          ]);
        });

        it('every field wrong at once, each named', async () => {
          expectInvalid(await post({ username: 1, password: [], collective_token: {}, active: 'no' }), [
            { field: 'username', message: 'field must be string' },
            { field: 'password', message: 'field must be string' },
            { field: 'collective_token', message: 'field must be string' },
            { field: 'active', message: 'field must be boolean' },
          ]);
        });
      });

      describe('400: an over-long field, named', () => {
        it('a duplicated field in a urlencoded form', async () => {
          const form = `${new URLSearchParams(body as Record<string, string>)}&username=other`;
          const error = expectError(
            await post(form, 'application/x-www-form-urlencoded'),
            400,
            'invalid_request',
          );
          expect(error.message).toBe('The form field "username" was sent more than once; send it once.');
        });
      });

      describe('401: wrong credentials', () => {
        it('the right password of another username is wrong', async () => {
          const other = await runtime.services.credentials.issue('other-integrator');
          expectInvalidCredentials(await post({ ...body, username: other.username }));
          expect((await post({ ...body, ...other })).statusCode).toBe(200);
        });
      });

      describe('403: wrong dispensary token', () => {
        it('the token with a changed case or extra space', async () => {
          const token = String(body.collective_token);
          expectInvalidToken(await post({ ...body, collective_token: token.toUpperCase() }));
          expectInvalidToken(await post({ ...body, collective_token: ` ${token}` }));
          expectInvalidToken(await post({ ...body, collective_token: `${token} ` }));
        });
      });

      describe('405: another method', () => {
        it.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)('%s /menu', async (method) => {
          const response = await runtime.app.inject({ method, url: '/menu', payload: body });
          const error = expectError(response, 405, 'method_not_allowed');
          expect(response.headers.allow).toBe('GET, HEAD, POST');
          expect(error.message).toBe(`${method} is not allowed on /menu. Use GET, HEAD, POST.`);
        });
      });

      describe('413: a body over the limit', () => {
        it('over the default 64 KiB', async () => {
          const payload = JSON.stringify({ ...body, padding: 'x'.repeat(64 * 1024) });
          const error = expectError(await post(payload), 413, 'payload_too_large');
          expect(error.message).toBe(
            'The request body is larger than this endpoint accepts: at most 65536 bytes (64 KiB). Send a smaller body.',
          );
        });

        it('just under the default 64 KiB is read', async () => {
          const base = JSON.stringify({ ...body, padding: '' });
          const payload = JSON.stringify({ ...body, padding: 'x'.repeat(64 * 1024 - base.length) });
          expect(Buffer.byteLength(payload)).toBe(64 * 1024);
          expect((await post(payload)).statusCode).toBe(200);
        });

        it('over the limit even when the body is not JSON at all', async () => {
          const response = await post('x'.repeat(70 * 1024), 'text/plain');
          expectError(response, 413, 'payload_too_large');
        });
      });

      describe('415: a content type that is not accepted', () => {
        it.each([
          'application/xml',
          'text/xml',
          'multipart/form-data; boundary=----x',
          'text/html',
          'application/octet-stream',
          'application/merge-patch+json',
          'image/png',
        ])('%s', async (contentType) => {
          const error = expectError(await post(body, contentType), 415, 'unsupported_media_type');
          expect(error.message).toBe(
            `Content-Type ${contentType} is not accepted here. Send application/json (or a urlencoded form).`,
          );
        });

        it('a real multipart form with the right fields', async () => {
          const boundary = '----boundary42';
          const parts = Object.entries(body).map(
            ([name, value]) =>
              `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
          );
          const response = await post(
            `${parts.join('')}--${boundary}--\r\n`,
            `multipart/form-data; boundary=${boundary}`,
          );
          expectError(response, 415, 'unsupported_media_type');
        });

        it('accepts application/json with a charset and in any case', async () => {
          expect((await post(body, 'application/json; charset=utf-8')).statusCode).toBe(200);
          expect((await post(body, 'Application/JSON')).statusCode).toBe(200);
        });
      });

      describe('checks run in order: shape, then credentials, then token', () => {
        it('bad shape and wrong credentials and wrong token: 400', async () => {
          expectInvalid(
            await post({ username: 'nobody', password: 'wrong', collective_token: 'bad', active: 'false' }),
            [{ field: 'active', message: 'field must be boolean' }],
          );
        });

        it('an over-long field and wrong credentials: 400', async () => {
          expectInvalid(await post({ ...body, username: 'nobody', password: 'p'.repeat(300) }), [
            { field: 'password', message: 'field must have at most 256 characters' },
          ]);
        });

        it('a missing token and wrong credentials: 400', async () => {
          expectInvalid(await post({ username: 'nobody', password: 'wrong' }), [
            { field: 'collective_token', message: 'field is required' },
          ]);
        });

        it('wrong credentials and wrong token: 401', async () => {
          expectInvalidCredentials(
            await post({ username: 'nobody', password: 'wrong', collective_token: 'bad' }),
          );
          expectInvalidCredentials(await post({ ...body, password: 'wrong', collective_token: 'bad' }));
        });

        it('right credentials and wrong token: 403', async () => {
          expectInvalidToken(await post({ ...body, collective_token: 'bad' }));
        });
      });

      describe('what is not an error', () => {
        it('unknown extra fields are ignored', async () => {
          const response = await post({ ...body, page: 2, filter: { type: 'Flower' } });
          expect(response.statusCode).toBe(200);
          expect(response.json()).toHaveLength(3);
        });

        it('extra form fields named like Object.prototype members are fields like any other', async () => {
          const form = new URLSearchParams({
            ...(body as Record<string, string>),
            constructor: '1',
            toString: '2',
            hasOwnProperty: '3',
          });
          const response = await post(`${form}&__proto__=4`, 'application/x-www-form-urlencoded');
          expect(response.statusCode, response.body).toBe(200);
          expect(response.json()).toHaveLength(3);
        });

        it('a JSON body with __proto__ keys changes nothing', async () => {
          const text = `{"__proto__": {"active": false}, "constructor": {"prototype": {"active": false}}, ${JSON.stringify(body).slice(1)}`;
          const response = await post(text);
          expect(response.statusCode).toBe(200);
          expect(response.json()).toHaveLength(3);
          expect(({} as Record<string, unknown>).active).toBeUndefined();
        });

        it('credentials hidden in __proto__ are not credentials', async () => {
          const response = await post(`{"__proto__": ${JSON.stringify(body)}}`);
          expectInvalid(response, [
            { field: 'username', message: 'field is required' },
            { field: 'password', message: 'field is required' },
            { field: 'collective_token', message: 'field is required' },
          ]);
        });
      });
    });
  }

  if (form.id === 'b') {
    describe(form.title('/menu'), () => {
      describe('400: a missing header, named', () => {
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
        it('every header over-long at once, each named', async () => {
          const long = 'y'.repeat(1000);
          expectInvalid(await get({ store: long, username: long, password: long }), [
            { field: 'store', message: 'header must have at most 256 characters' },
            { field: 'username', message: 'header must have at most 256 characters' },
            { field: 'password', message: 'header must have at most 256 characters' },
          ]);
        });
      });

      describe('400: a repeated header', () => {
        cases.itRefusesRepeatedHeaders();

        it('store sent twice with different values', async () => {
          const error = expectError(
            await get({ ...headers, store: ['a', headers.store!] }),
            400,
            'invalid_request',
          );
          expect(error.message).toBe('The header "store" was sent more than once; send it once.');
        });

        it('a repeated header that is not a credential is fine', async () => {
          const response = await get({ ...headers, accept: ['application/json', 'text/plain'] });
          expect(response.statusCode).toBe(200);
        });

        describe('over real HTTP', () => {
          let baseUrl: string;
          beforeAll(async () => {
            baseUrl = await listening(runtime.app);
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
            { field: 'password', message: 'header must have at most 256 characters' },
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
  }
});

describe('POST /menu (Form A): a custom body limit', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: { bodyLimit: 512 } });
  });
  afterAll(() => runtime.close());

  it('refuses a body over the configured limit with 413', async () => {
    const payload = JSON.stringify({ ...formABody(runtime.seed), padding: 'x'.repeat(600) });
    expectError(
      await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        headers: { 'content-type': 'application/json' },
        payload,
      }),
      413,
      'payload_too_large',
    );
  });

  it('reads a body under the configured limit', async () => {
    const payload = JSON.stringify({ ...formABody(runtime.seed), padding: 'x'.repeat(100) });
    expect(Buffer.byteLength(payload)).toBeLessThan(512);
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(200);
  });
});
