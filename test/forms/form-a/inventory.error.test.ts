import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../../helpers/admin.js';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formABody,
} from '../../helpers/http.js';
import { NOT_RFC3339 } from '../../helpers/inventory.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

const SECRET_FIELDS = ['username', 'password', 'collective_token'] as const;
const BAD_SINCE = { field: 'since', message: 'must be an RFC 3339 time' };

describe('POST /inventory (Form A): errors', () => {
  let runtime: TestRuntime;
  let body: Record<string, unknown>;
  const post = (payload: unknown, contentType = 'application/json') =>
    runtime.app.inject({
      method: 'POST',
      url: '/inventory',
      headers: { 'content-type': contentType },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    body = formABody(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe('400: a bad since names the field', () => {
    it.each(NOT_RFC3339)('%s: %j', async (_label, since) => {
      const error = expectInvalid(await post({ ...body, since }), [BAD_SINCE]);
      expect(error.message).toContain('RFC 3339');
    });

    it.each([
      ['a number', 1795608000],
      ['null', null],
      ['an array', ['2026-11-25T12:00:00Z']],
      ['an object', { after: '2026-11-25T12:00:00Z' }],
      ['true', true],
    ])('since as %s is not coerced', async (_label, since) => {
      expectInvalid(await post({ ...body, since }), [{ field: 'since', message: 'field must be string' }]);
    });

    it('since of 65 characters', async () => {
      expectInvalid(await post({ ...body, since: `2026-11-25T12:00:00.${'1'.repeat(44)}Z` }), [
        { field: 'since', message: 'field must NOT have more than 64 characters' },
      ]);
    });

    it('a valid since with more than millisecond precision is fine', async () => {
      const response = await post({ ...body, since: '2000-01-01T00:00:00.123456789Z' });
      expect(response.statusCode).toBe(200);
      expect(response.json().length).toBe(4);
    });

    it('February 29 of a leap year is a real day', async () => {
      expect((await post({ ...body, since: '2028-02-29T00:00:00Z' })).statusCode).toBe(200);
    });
  });

  describe('the credential and token model of POST /menu', () => {
    it.each(SECRET_FIELDS)('400: a missing %s, named', async (field) => {
      const { [field]: _dropped, ...rest } = body;
      expectInvalid(await post(rest), [{ field, message: 'field is required' }]);
    });

    it('400: a body that is not an object', async () => {
      expectInvalid(await post('[]'), [{ field: 'body', message: 'must be a JSON object' }]);
    });

    it('400: malformed JSON', async () => {
      expectError(await post('{"since": '), 400, 'invalid_request');
    });

    it('401: a wrong password', async () => {
      expectInvalidCredentials(await post({ ...body, password: 'wrong' }));
    });

    it('401: an unknown username, with a valid since', async () => {
      expectInvalidCredentials(await post({ ...body, username: 'nobody', since: '2026-01-01T00:00:00Z' }));
    });

    it('403: an unknown token', async () => {
      expectInvalidToken(await post({ ...body, collective_token: 'not-a-token' }));
    });

    it('401: a revoked credential, at once', async () => {
      const issued = await runtime.services.credentials.issue('inventory-revoked');
      const own = { ...body, username: issued.username, password: issued.password };
      expect((await post(own)).statusCode).toBe(200);
      await runtime.services.credentials.revoke(issued.username);
      expectInvalidCredentials(await post(own));
    });

    it('403: the token of a removed dispensary, at once', async () => {
      const created = await runtime.services.dispensaries.create('Closing');
      const own = { ...body, collective_token: created.token };
      expect((await post(own)).statusCode).toBe(200);
      await runtime.services.dispensaries.remove(created.id);
      expectInvalidToken(await post(own));
    });

    it('415: a content type that is not accepted', async () => {
      expectError(await post(JSON.stringify(body), 'text/csv'), 415, 'unsupported_media_type');
    });

    it('405: GET /inventory without Form B headers is Form B, and PUT is not allowed', async () => {
      const response = await runtime.app.inject({ method: 'PUT', url: '/inventory' });
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.allow).toBe('GET, HEAD, POST');
    });
  });
});
