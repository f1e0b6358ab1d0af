import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../helpers/admin.js';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  rawRequest,
} from '../helpers/http.js';
import type { TestRuntime } from '../helpers/runtime.js';
import { credentialCases } from './credential-cases.js';
import { FORM_DRIVERS, postAsIs } from './driver.js';

describe.each(FORM_DRIVERS)('$id: /store errors, the same model as /menu', (form) => {
  let runtime: TestRuntime;
  let good: Record<string, unknown>;
  const send = (credentials: Record<string, unknown>) => form.send(runtime, '/store', { credentials });
  const cases = credentialCases({ form, send, good: () => good, runtime: () => runtime });
  /** Form A only: a body as it is, with its content type. */
  const post = (payload: unknown, contentType?: string) => postAsIs(runtime, '/store', payload, contentType);

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    good = form.credentials(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe(`${form.title('/store')}: 400`, () => {
    cases.itNamesMissingOrLong();

    if (form.id === 'a') {
      it.each(form.secrets)('%s as a number is not coerced', async (field) => {
        expectInvalid(await send({ ...good, [field]: 12345 }), [{ field, message: 'field must be string' }]);
      });

      it('malformed JSON', async () => {
        const error = expectError(await post('{"username": '), 400, 'invalid_request');
        expect(error.message).toContain('not valid JSON');
      });

      it.each([
        ['an array', '[]'],
        ['a string', '"x"'],
        ['null', 'null'],
      ])('a body that is %s', async (_label, text) => {
        expectInvalid(await post(text), [{ field: 'body', message: 'must be a JSON object' }]);
      });

      it('shape comes before credentials: a missing token with a wrong password is 400', async () => {
        const { collective_token: _token, ...rest } = good;
        expectInvalid(await send({ ...rest, password: 'wrong' }), [
          { field: 'collective_token', message: 'field is required' },
        ]);
      });
    }

    if (form.id === 'b') {
      cases.itRefusesRepeatedHeaders();

      it('a repeated header over real HTTP', async () => {
        // A runtime of its own: listening, then closing, is not for the app the other cases share.
        const own = await syncTestRuntime();
        try {
          const headers = form.credentials(own.seed);
          const baseUrl = await own.app.listen({ host: '127.0.0.1', port: 0 });
          const response = await rawRequest(baseUrl, {
            method: 'GET',
            path: '/store',
            headers: [
              ['store', [headers.store!, 'other']],
              ['username', headers.username!],
              ['password', headers.password!],
            ],
          });
          expect(response.status).toBe(400);
          expect(JSON.parse(response.body).error.message).toBe(
            'The header "store" was sent more than once; send it once.',
          );
        } finally {
          await own.close();
        }
      });

      it('the Form A field name as a header is not the token: 400', async () => {
        const { store, ...rest } = good;
        expectInvalid(await send({ ...rest, collective_token: store }), [
          { field: 'store', message: 'header is required' },
        ]);
      });
    }
  });

  describe(`${form.title('/store')}: 401, wrong credentials`, () => {
    cases.itRefusesWrongCredentials();

    it('wrong credentials and a wrong token: 401, the token is not judged', async () => {
      expectInvalidCredentials(await send({ ...good, password: 'wrong', [form.token]: 'nope' }));
    });
  });

  describe(`${form.title('/store')}: a revoked credential or a removed dispensary`, () => {
    cases.itRefusesRevokedAtOnce('store');
  });

  describe(`${form.title('/store')}: 403, wrong dispensary token`, () => {
    it('an unknown token', async () => {
      expectInvalidToken(await send({ ...good, [form.token]: 'not-a-token' }));
    });

    it('a rotated token, at once; the new one works', async () => {
      const created = await runtime.services.dispensaries.create('Rotating');
      const old = { ...good, [form.token]: created.token };
      expect((await send(old)).statusCode).toBe(200);
      const rotated = await runtime.services.dispensaries.rotateToken(created.id, undefined, 0);
      expectInvalidToken(await send(old));
      expect((await send({ ...good, [form.token]: rotated.token })).json().name).toBe('Rotating');
    });
  });

  if (form.id === 'a') {
    it('415: a content type that is not accepted', async () => {
      expectError(await post(JSON.stringify(good), 'application/xml'), 415, 'unsupported_media_type');
    });

    it('413: a body over the public 64 KiB limit', async () => {
      expectError(await send({ ...good, padding: 'x'.repeat(70 * 1024) }), 413, 'payload_too_large');
    });

    it.each(['PUT', 'PATCH', 'DELETE'] as const)(
      '405: %s /store names the allowed methods',
      async (method) => {
        const response = await runtime.app.inject({ method, url: '/store' });
        expectError(response, 405, 'method_not_allowed');
        expect(response.headers.allow).toBe('GET, HEAD, POST');
      },
    );
  }

  it('no error body carries a secret', async () => {
    const responses = [
      await send({ ...good, password: 'wrong' }),
      await send({ ...good, [form.token]: 'not-a-token' }),
      // Form A also reads a wrongly typed credential: its message must not echo the others.
      ...(form.id === 'a' ? [await send({ ...good, username: 5 })] : []),
    ];
    for (const response of responses) {
      expect(response.body).not.toContain(runtime.seed.password);
      expect(response.body).not.toContain(runtime.seed.token);
    }
  });
});
