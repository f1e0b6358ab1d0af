import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../../helpers/admin.js';
import {
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formBHeaders,
  rawRequest,
} from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

const HEADERS = ['store', 'username', 'password'] as const;

describe('GET /store (Form B): errors, the same model as GET /menu', () => {
  let runtime: TestRuntime;
  let headers: Record<string, string>;
  const get = (requestHeaders: Record<string, string | string[]>) =>
    runtime.app.inject({ method: 'GET', url: '/store', headers: requestHeaders });

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    headers = formBHeaders(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe('400', () => {
    it.each(HEADERS)('a missing %s header, named', async (name) => {
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

    it.each(HEADERS)('%s of 257 characters', async (name) => {
      expectInvalid(await get({ ...headers, [name]: 'x'.repeat(257) }), [
        { field: name, message: 'header must NOT have more than 256 characters' },
      ]);
    });

    it.each(HEADERS)('%s sent twice (even with the same value)', async (name) => {
      const error = expectError(
        await get({ ...headers, [name]: [headers[name]!, headers[name]!] }),
        400,
        'invalid_request',
      );
      expect(error.message).toBe(`The header "${name}" was sent more than once; send it once.`);
    });

    it('a repeated header is refused before the credentials are checked', async () => {
      const error = expectError(
        await get({ store: 'bad', username: ['nobody', 'nobody'], password: 'wrong' }),
        400,
        'invalid_request',
      );
      expect(error.message).toBe('The header "username" was sent more than once; send it once.');
    });

    it('a repeated header over real HTTP', async () => {
      const baseUrl = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
      try {
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
        await runtime.app.close();
      }
    });
  });

  describe('401 and 403', () => {
    // The app was closed by the real-HTTP test above: these use a fresh runtime.
    let fresh: TestRuntime;
    let good: Record<string, string>;
    const send = (requestHeaders: Record<string, string>) =>
      fresh.app.inject({ method: 'GET', url: '/store', headers: requestHeaders });
    beforeAll(async () => {
      fresh = await syncTestRuntime();
      good = formBHeaders(fresh.seed);
    });
    afterAll(() => fresh.close());

    it('a wrong password: 401', async () => {
      expectInvalidCredentials(await send({ ...good, password: 'wrong' }));
    });

    it('an unknown username: 401', async () => {
      expectInvalidCredentials(await send({ ...good, username: 'nobody' }));
    });

    it('wrong credentials and a wrong token: 401', async () => {
      expectInvalidCredentials(await send({ ...good, password: 'wrong', store: 'nope' }));
    });

    it('a revoked credential: 401 at once', async () => {
      const issued = await fresh.services.credentials.issue('revoked-b');
      const own = { ...good, username: issued.username, password: issued.password };
      expect((await send(own)).statusCode).toBe(200);
      await fresh.services.credentials.revoke(issued.username);
      expectInvalidCredentials(await send(own));
    });

    it('an unknown token: 403', async () => {
      expectInvalidToken(await send({ ...good, store: 'not-a-token' }));
    });

    it('a rotated token: 403 at once; the new one works', async () => {
      const created = await fresh.services.dispensaries.create('Rotating B');
      expect((await send({ ...good, store: created.token })).statusCode).toBe(200);
      const rotated = await fresh.services.dispensaries.rotateToken(created.id, undefined, 0);
      expectInvalidToken(await send({ ...good, store: created.token }));
      expect((await send({ ...good, store: rotated.token })).json().name).toBe('Rotating B');
    });

    it('the Form A field name as a header is not the token: 400', async () => {
      const { store, ...rest } = good;
      expectInvalid(await send({ ...rest, collective_token: store! }), [
        { field: 'store', message: 'header is required' },
      ]);
    });

    it('no error body carries a secret', async () => {
      for (const response of [
        await send({ ...good, password: 'wrong' }),
        await send({ ...good, store: 'not-a-token' }),
      ]) {
        expect(response.body).not.toContain(fresh.seed.password);
        expect(response.body).not.toContain(fresh.seed.token);
      }
    });
  });
});
