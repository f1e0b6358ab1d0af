import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../helpers/admin.js';
import { expectError, expectInvalid, expectInvalidCredentials, expectInvalidToken } from '../helpers/http.js';
import { NOT_RFC3339 } from '../helpers/inventory.js';
import { SAMPLE_MENU, type TestRuntime } from '../helpers/runtime.js';
import { credentialCases } from './credential-cases.js';
import { FORM_DRIVERS, postAsIs } from './driver.js';

const BAD_SINCE = { field: 'since', message: 'must be an RFC 3339 time' };

describe.each(FORM_DRIVERS)('$id: /inventory errors', (form) => {
  let runtime: TestRuntime;
  let good: Record<string, unknown>;
  const send = (credentials: Record<string, unknown>, parameters?: Record<string, unknown>) =>
    form.send(runtime, '/inventory', { credentials, parameters });
  const cases = credentialCases({ form, send, good: () => good, runtime: () => runtime });
  /** Form A only: a body as it is, with its content type. */
  const post = (payload: unknown, contentType?: string) =>
    postAsIs(runtime, '/inventory', payload, contentType);
  /** Form B only: a query string as it is. */
  const get = (query: string, headers: Record<string, unknown> = good) =>
    runtime.app.inject({
      method: 'GET',
      url: `/inventory${query}`,
      headers: headers as Record<string, string>,
    });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    good = form.credentials(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe(`${form.title('/inventory')}: 400, a bad since names the parameter`, () => {
    it.each(NOT_RFC3339)('%s: %j', async (_label, since) => {
      const error = expectInvalid(await send(good, { since }), [BAD_SINCE]);
      expect(error.message).toContain('RFC 3339');
    });

    it('since of 65 characters', async () => {
      expectInvalid(await send(good, { since: `2026-11-25T12:00:00.${'1'.repeat(44)}Z` }), [
        { field: 'since', message: `${form.parameterCarrier} must have at most 64 characters` },
      ]);
    });

    if (form.id === 'a') {
      it.each([
        ['a number', 1795608000],
        ['null', null],
        ['an array', ['2026-11-25T12:00:00Z']],
        ['an object', { after: '2026-11-25T12:00:00Z' }],
        ['true', true],
      ])('since as %s is not coerced', async (_label, since) => {
        expectInvalid(await send(good, { since }), [{ field: 'since', message: 'field must be string' }]);
      });

      it('a valid since with more than millisecond precision is fine', async () => {
        const response = await send(good, { since: '2000-01-01T00:00:00.123456789Z' });
        expect(response.statusCode).toBe(200);
        expect(response.json().length).toBe(4);
      });

      it('February 29 of a leap year is a real day', async () => {
        expect((await send(good, { since: '2028-02-29T00:00:00Z' })).statusCode).toBe(200);
      });
    }

    if (form.id === 'b') {
      it('an unencoded + offset reads as a space, which is not RFC 3339', async () => {
        expectInvalid(await get('?since=2026-11-25T12:00:00+02:00'), [BAD_SINCE]);
      });

      it('since given twice', async () => {
        expectInvalid(await get('?since=2026-11-25T12:00:00Z&since=2026-11-26T12:00:00Z'), [
          { field: 'since', message: 'query parameter must be string' },
        ]);
      });

      it('a bad since is refused before the credentials are checked', async () => {
        expectInvalid(await get('?since=soon', { ...good, password: 'wrong' }), [BAD_SINCE]);
      });

      it('no since and an empty query string are fine', async () => {
        expect((await get('')).json().length).toBe(4);
        expect((await get('?')).json().length).toBe(4);
      });
    }
  });

  describe(`${form.title('/inventory')}: the credential and token model of /menu`, () => {
    it.each(form.secrets)('400: a missing %s, named', async (name) => {
      const { [name]: _dropped, ...rest } = good;
      expectInvalid(await send(rest), [{ field: name, message: `${form.secretCarrier} is required` }]);
    });

    cases.itRefusesWrongCredentials();

    it('403: an unknown token', async () => {
      expectInvalidToken(await send({ ...good, [form.token]: 'not-a-token' }));
    });

    cases.itRefusesRevokedAtOnce('inventory');

    if (form.id === 'a') {
      it('400: a body that is not an object', async () => {
        expectInvalid(await post('[]'), [{ field: 'body', message: 'must be a JSON object' }]);
      });

      it('400: malformed JSON', async () => {
        expectError(await post('{"since": '), 400, 'invalid_request');
      });

      it('401: an unknown username, with a valid since', async () => {
        expectInvalidCredentials(
          await send({ ...good, username: 'nobody' }, { since: '2026-01-01T00:00:00Z' }),
        );
      });

      it('415: a content type that is not accepted', async () => {
        expectError(await post(JSON.stringify(good), 'text/csv'), 415, 'unsupported_media_type');
      });

      it('405: GET /inventory without Form B headers is Form B, and PUT is not allowed', async () => {
        const response = await runtime.app.inject({ method: 'PUT', url: '/inventory' });
        expectError(response, 405, 'method_not_allowed');
        expect(response.headers.allow).toBe('GET, HEAD, POST');
      });
    }

    if (form.id === 'b') {
      cases.itRefusesRepeatedHeaders();

      it('401: wrong credentials and a wrong token', async () => {
        expectInvalidCredentials(await send({ ...good, username: 'nobody', store: 'nope' }));
      });

      it('credentials in the query string are not headers', async () => {
        expectInvalid(await get(`?${new URLSearchParams(good as Record<string, string>)}`, {}), [
          { field: 'store', message: 'header is required' },
          { field: 'username', message: 'header is required' },
          { field: 'password', message: 'header is required' },
        ]);
      });
    }
  });
});
