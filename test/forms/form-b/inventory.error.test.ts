import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../../helpers/admin.js';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formBHeaders,
} from '../../helpers/http.js';
import { NOT_RFC3339 } from '../../helpers/inventory.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

const HEADERS = ['store', 'username', 'password'] as const;
const BAD_SINCE = { field: 'since', message: 'must be an RFC 3339 time' };

describe('GET /inventory (Form B): errors', () => {
  let runtime: TestRuntime;
  let headers: Record<string, string>;
  const get = (query: string, requestHeaders: Record<string, string | string[]> = headers) =>
    runtime.app.inject({ method: 'GET', url: `/inventory${query}`, headers: requestHeaders });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    headers = formBHeaders(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe('400: a bad ?since= names the query parameter', () => {
    it.each(NOT_RFC3339)('%s: %j', async (_label, since) => {
      expectInvalid(await get(`?since=${encodeURIComponent(since)}`), [BAD_SINCE]);
    });

    it('an unencoded + offset reads as a space, which is not RFC 3339', async () => {
      expectInvalid(await get('?since=2026-11-25T12:00:00+02:00'), [BAD_SINCE]);
    });

    it('since given twice', async () => {
      expectInvalid(await get('?since=2026-11-25T12:00:00Z&since=2026-11-26T12:00:00Z'), [
        { field: 'since', message: 'query parameter must be string' },
      ]);
    });

    it('since of 65 characters', async () => {
      expectInvalid(await get(`?since=2026-11-25T12:00:00.${'1'.repeat(44)}Z`), [
        { field: 'since', message: 'query parameter must NOT have more than 64 characters' },
      ]);
    });

    it('a bad since is refused before the credentials are checked', async () => {
      expectInvalid(await get('?since=soon', { ...headers, password: 'wrong' }), [BAD_SINCE]);
    });

    it('no since and an empty query string are fine', async () => {
      expect((await get('')).json().length).toBe(4);
      expect((await get('?')).json().length).toBe(4);
    });
  });

  describe('the credential and token model of GET /menu', () => {
    it.each(HEADERS)('400: a missing %s header, named', async (name) => {
      const { [name]: _dropped, ...rest } = headers;
      expectInvalid(await get('', rest), [{ field: name, message: 'header is required' }]);
    });

    it.each(HEADERS)('400: %s sent twice', async (name) => {
      const error = expectError(
        await get('', { ...headers, [name]: [headers[name]!, headers[name]!] }),
        400,
        'invalid_request',
      );
      expect(error.message).toBe(`The header "${name}" was sent more than once; send it once.`);
    });

    it('401: a wrong password', async () => {
      expectInvalidCredentials(await get('', { ...headers, password: 'wrong' }));
    });

    it('401: wrong credentials and a wrong token', async () => {
      expectInvalidCredentials(await get('', { ...headers, username: 'nobody', store: 'nope' }));
    });

    it('403: an unknown token', async () => {
      expectInvalidToken(await get('', { ...headers, store: 'not-a-token' }));
    });

    it('credentials in the query string are not headers', async () => {
      expectInvalid(await get(`?${new URLSearchParams(headers)}`, {}), [
        { field: 'store', message: 'header is required' },
        { field: 'username', message: 'header is required' },
        { field: 'password', message: 'header is required' },
      ]);
    });

    it('401: a revoked credential, at once', async () => {
      const issued = await runtime.services.credentials.issue('inventory-b-revoked');
      const own = { ...headers, username: issued.username, password: issued.password };
      expect((await get('', own)).statusCode).toBe(200);
      await runtime.services.credentials.revoke(issued.username);
      expectInvalidCredentials(await get('', own));
    });
  });
});
