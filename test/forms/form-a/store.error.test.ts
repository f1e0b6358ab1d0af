import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../../helpers/admin.js';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formABody,
} from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

const SECRET_FIELDS = ['username', 'password', 'collective_token'] as const;

describe('POST /store (Form A): errors, the same model as POST /menu', () => {
  let runtime: TestRuntime;
  let body: Record<string, unknown>;
  const post = (payload: unknown, contentType = 'application/json') =>
    runtime.app.inject({
      method: 'POST',
      url: '/store',
      headers: { 'content-type': contentType },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    body = formABody(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe('400', () => {
    it.each(SECRET_FIELDS)('a missing %s, named', async (field) => {
      const { [field]: _dropped, ...rest } = body;
      expectInvalid(await post(rest), [{ field, message: 'field is required' }]);
    });

    it('every field missing at once, each named', async () => {
      expectInvalid(await post({}), [
        { field: 'username', message: 'field is required' },
        { field: 'password', message: 'field is required' },
        { field: 'collective_token', message: 'field is required' },
      ]);
    });

    it.each(SECRET_FIELDS)('%s as a number is not coerced', async (field) => {
      expectInvalid(await post({ ...body, [field]: 12345 }), [{ field, message: 'field must be string' }]);
    });

    it.each(SECRET_FIELDS)('%s of 257 characters', async (field) => {
      expectInvalid(await post({ ...body, [field]: 'x'.repeat(257) }), [
        { field, message: 'field must NOT have more than 256 characters' },
      ]);
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
      const { collective_token: _token, ...rest } = body;
      expectInvalid(await post({ ...rest, password: 'wrong' }), [
        { field: 'collective_token', message: 'field is required' },
      ]);
    });
  });

  describe('401: wrong credentials', () => {
    it('a wrong password', async () => {
      expectInvalidCredentials(await post({ ...body, password: 'wrong' }));
    });

    it('an unknown username', async () => {
      expectInvalidCredentials(await post({ ...body, username: 'nobody' }));
    });

    it('wrong credentials and a wrong token: 401, the token is not judged', async () => {
      expectInvalidCredentials(await post({ ...body, password: 'wrong', collective_token: 'nope' }));
    });

    it('a revoked credential, at once', async () => {
      const issued = await runtime.services.credentials.issue('soon-revoked');
      const own = { ...body, username: issued.username, password: issued.password };
      expect((await post(own)).statusCode).toBe(200);
      await runtime.services.credentials.revoke(issued.username);
      expectInvalidCredentials(await post(own));
    });
  });

  describe('403: wrong dispensary token', () => {
    it('an unknown token', async () => {
      expectInvalidToken(await post({ ...body, collective_token: 'not-a-token' }));
    });

    it('a rotated token, at once; the new one works', async () => {
      const created = await runtime.services.dispensaries.create('Rotating');
      const old = { ...body, collective_token: created.token };
      expect((await post(old)).statusCode).toBe(200);
      const rotated = await runtime.services.dispensaries.rotateToken(created.id, undefined, 0);
      expectInvalidToken(await post(old));
      expect((await post({ ...body, collective_token: rotated.token })).json().name).toBe('Rotating');
    });

    it('the token of a removed dispensary', async () => {
      const created = await runtime.services.dispensaries.create('Closing');
      const own = { ...body, collective_token: created.token };
      expect((await post(own)).statusCode).toBe(200);
      await runtime.services.dispensaries.remove(created.id);
      expectInvalidToken(await post(own));
    });
  });

  it('415: a content type that is not accepted', async () => {
    expectError(await post(JSON.stringify(body), 'application/xml'), 415, 'unsupported_media_type');
  });

  it('413: a body over the public 64 KiB limit', async () => {
    expectError(await post({ ...body, padding: 'x'.repeat(70 * 1024) }), 413, 'payload_too_large');
  });

  it.each(['PUT', 'PATCH', 'DELETE'] as const)('405: %s /store names the allowed methods', async (method) => {
    const response = await runtime.app.inject({ method, url: '/store' });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('GET, HEAD, POST');
  });

  it('no error body carries a secret', async () => {
    const responses = await Promise.all([
      post({ ...body, password: 'wrong' }),
      post({ ...body, collective_token: 'not-a-token' }),
      post({ ...body, username: 5 }),
    ]);
    for (const response of responses) {
      expect(response.body).not.toContain(runtime.seed.password);
      expect(response.body).not.toContain(runtime.seed.token);
    }
  });
});
