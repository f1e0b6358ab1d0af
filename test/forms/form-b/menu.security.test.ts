import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asHeaderBytes,
  everythingSent,
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formBHeaders,
  loggedTestRuntime,
  SQL_METACHARACTERS,
  UNICODE_VALUES,
} from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../../helpers/runtime.js';

const OTHER_MENU = [
  {
    id: 1,
    name: 'Other Shop Gummies',
    brand: 'Other Brand',
    product_type: 'Edible',
    prices: [{ unit: 'unit', amount: 10, price: 25, stock: 3 }],
  },
  { id: 50, name: 'Other Shop Hash', product_type: 'Concentrate', active: false, prices: [] },
];

type Item = { id: number; name: string };
const names = (response: LightMyRequestResponse) => (response.json() as Item[]).map((item) => item.name);
const OUR_ACTIVE_ITEMS = ['Fudge Brownie', 'Blue Dream', 'Vape Cart'];

describe('GET /menu (Form B): security', () => {
  let runtime: TestRuntime;
  let headers: Record<string, string>;
  const secrets: string[] = [];
  const responses: LightMyRequestResponse[] = [];
  const get = async (requestHeaders: Record<string, string>, url = '/menu') => {
    const response = await runtime.app.inject({ method: 'GET', url, headers: requestHeaders });
    responses.push(response);
    return response;
  };

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    headers = formBHeaders(runtime.seed);
    secrets.push(runtime.seed.password, runtime.seed.token);
  });
  afterAll(() => runtime.close());

  async function secondDispensary(name: string, menu: unknown[] = OTHER_MENU) {
    const { dispensaries, menus } = runtime.services;
    const dispensary = await dispensaries.create(name);
    await menus.replace(dispensary.id, menus.validate(menu));
    secrets.push(dispensary.token);
    return dispensary;
  }

  describe('dispensaries are isolated', () => {
    it("another dispensary's token returns that dispensary's menu only", async () => {
      const other = await secondDispensary('Other Collective');
      const ours = await get(headers);
      const theirs = await get({ ...headers, store: other.token });
      expect(ours.statusCode).toBe(200);
      expect(theirs.statusCode).toBe(200);
      expect(names(ours)).toEqual(OUR_ACTIVE_ITEMS);
      expect(theirs.json()).toEqual([
        expect.objectContaining({
          id: 1,
          name: 'Other Shop Gummies',
          brand: 'Other Brand',
          prices: [{ unit: 'unit', amount: 10, price: 25, stock: 3 }],
        }),
      ]);
      // Item id 1 exists in both menus: each dispensary still sees its own.
      expect(names(await get(headers))).toEqual(OUR_ACTIVE_ITEMS);
      expect(names(await get({ ...headers, store: other.token }))).toEqual(['Other Shop Gummies']);
    });

    it("a removed dispensary's token gets 403 at once, even after it was used", async () => {
      const doomed = await secondDispensary('Doomed Collective');
      expect((await get({ ...headers, store: doomed.token })).statusCode).toBe(200);
      await runtime.services.dispensaries.remove(doomed.id);
      expectInvalidToken(await get({ ...headers, store: doomed.token }));
      expect(names(await get(headers))).toEqual(OUR_ACTIVE_ITEMS);
    });
  });

  describe('revoked credentials and rotated tokens', () => {
    it('a revoked credential gets 401 at once, even after it was used (and remembered)', async () => {
      const credential = await runtime.services.credentials.issue('soon-revoked');
      secrets.push(credential.password);
      const asIt = { ...headers, username: credential.username, password: credential.password };
      expect((await get(asIt)).statusCode).toBe(200);
      expect((await get(asIt)).statusCode).toBe(200);
      await runtime.services.credentials.revoke(credential.username);
      expectInvalidCredentials(await get(asIt));
      expectInvalidCredentials(await get({ ...asIt, store: 'not-a-token' }));
      expect((await get(headers)).statusCode).toBe(200);
    });

    it('a credential revoked in Form B is revoked in Form A too', async () => {
      const credential = await runtime.services.credentials.issue('revoked-everywhere');
      secrets.push(credential.password);
      const formA = {
        username: credential.username,
        password: credential.password,
        collective_token: headers.store,
      };
      expect((await runtime.app.inject({ method: 'POST', url: '/menu', payload: formA })).statusCode).toBe(
        200,
      );
      await runtime.services.credentials.revoke(credential.username);
      expectInvalidCredentials(
        await get({ ...headers, username: credential.username, password: credential.password }),
      );
      expectInvalidCredentials(await runtime.app.inject({ method: 'POST', url: '/menu', payload: formA }));
    });

    it('a remembered credential does not let a wrong password through', async () => {
      expect((await get(headers)).statusCode).toBe(200);
      expectInvalidCredentials(await get({ ...headers, password: `${headers.password}x` }));
      expectInvalidCredentials(await get({ ...headers, password: headers.password!.slice(1) }));
    });

    it('a rotated token: the old one gets 403 at once, the new one 200', async () => {
      const dispensary = await secondDispensary('Rotating Collective');
      expect((await get({ ...headers, store: dispensary.token })).statusCode).toBe(200);
      const rotated = await runtime.services.dispensaries.rotateToken(dispensary.id, undefined, 0);
      secrets.push(rotated.token);
      expectInvalidToken(await get({ ...headers, store: dispensary.token }));
      const fresh = await get({ ...headers, store: rotated.token });
      expect(fresh.statusCode).toBe(200);
      expect(names(fresh)).toEqual(['Other Shop Gummies']);
      // Rotating again retires the second token as well.
      const again = await runtime.services.dispensaries.rotateToken(dispensary.id, undefined, 0);
      secrets.push(again.token);
      expectInvalidToken(await get({ ...headers, store: rotated.token }));
      expect((await get({ ...headers, store: again.token })).statusCode).toBe(200);
    });

    it('wrong credentials cannot probe tokens: a valid and an invalid token get the same 401', async () => {
      expectInvalidCredentials(await get({ ...headers, password: 'guess' }));
      expectInvalidCredentials(await get({ ...headers, password: 'guess', store: 'guess' }));
    });
  });

  describe('SQL metacharacters never reach SQL as code', () => {
    it.each(SQL_METACHARACTERS)('in username: %j gets 401', async (value) => {
      expectInvalidCredentials(await get({ ...headers, username: value }));
    });

    it.each(SQL_METACHARACTERS)('in password: %j gets 401', async (value) => {
      expectInvalidCredentials(await get({ ...headers, password: value }));
    });

    it.each(SQL_METACHARACTERS)('in store: %j gets 403', async (value) => {
      expectInvalidToken(await get({ ...headers, store: value }));
    });

    it.each(SQL_METACHARACTERS)('in every header at once: %j gets 401', async (value) => {
      expectInvalidCredentials(await get({ store: value, username: value, password: value }));
    });

    it.each(SQL_METACHARACTERS)('in the query string: %j changes nothing', async (value) => {
      const response = await get(
        headers,
        `/menu?store=${encodeURIComponent(value)}&id=${encodeURIComponent(value)}`,
      );
      expect(response.statusCode).toBe(200);
      expect(names(response)).toEqual(OUR_ACTIVE_ITEMS);
    });

    it.each(['integrato_', 'integrat%', '%', '_%', 'INTEGRATOR', 'integrator '])(
      'username %j with the right password is not a pattern or a case-insensitive match',
      async (username) => {
        expectInvalidCredentials(await get({ ...headers, username }));
      },
    );

    it('the database still answers the same afterwards', async () => {
      const response = await get(headers);
      expect(response.statusCode).toBe(200);
      expect(names(response)).toEqual(OUR_ACTIVE_ITEMS);
      expect(await runtime.services.store.menus.read(runtime.seed.dispensaryId)).toHaveLength(4);
      const credentials = await runtime.services.credentials.list();
      expect(credentials.map((credential) => credential.username)).toContain('integrator');
    });

    it('no response to any of it was a 500', () => {
      expect(responses.length).toBeGreaterThan(100);
      for (const response of responses) expect(response.statusCode).toBeLessThan(500);
    });
  });

  describe('unicode and very long values', () => {
    it.each(UNICODE_VALUES)('%j (as UTF-8 bytes) in each header: 401 or 403, never 500', async (value) => {
      const bytes = asHeaderBytes(value);
      expectInvalidCredentials(await get({ ...headers, username: bytes }));
      expectInvalidCredentials(await get({ ...headers, password: bytes }));
      expectInvalidToken(await get({ ...headers, store: bytes }));
    });

    it.each(UNICODE_VALUES)('%j (as decoded text) in each header: 401 or 403, never 500', async (value) => {
      expectInvalidCredentials(await get({ ...headers, username: value }));
      expectInvalidCredentials(await get({ ...headers, password: value }));
      expectInvalidToken(await get({ ...headers, store: value }));
    });

    it('a header is measured as received: 64 emoji (256 bytes) pass, 65 do not', async () => {
      expectInvalidCredentials(await get({ ...headers, password: asHeaderBytes('😀'.repeat(64)) }));
      expectInvalid(await get({ ...headers, password: asHeaderBytes('😀'.repeat(65)) }), [
        { field: 'password', message: 'header must NOT have more than 256 characters' },
      ]);
    });

    it.each(['store', 'username', 'password'])('a 8,000-character %s gets 400 naming it', async (name) => {
      expectInvalid(await get({ ...headers, [name]: 'z'.repeat(8000) }), [
        { field: name, message: 'header must NOT have more than 256 characters' },
      ]);
    });
  });

  describe('secrets never travel back', () => {
    it('no password or token appears in any response body or header', async () => {
      await get({ ...headers, password: `${headers.password}-wrong` });
      await get({ ...headers, store: `${headers.store}-wrong` });
      await get({ ...headers, password: `${headers.password}${'x'.repeat(300)}` });
      await get({ store: headers.password!, username: headers.store!, password: headers.store! });
      const repeated = await runtime.app.inject({
        method: 'GET',
        url: '/menu',
        headers: { ...headers, password: [headers.password!, headers.password!] },
      });
      expectError(repeated, 400, 'invalid_request');
      const head = await runtime.app.inject({ method: 'HEAD', url: '/menu', headers });
      expect(head.statusCode).toBe(200);
      responses.push(repeated, head);

      expect(secrets.length).toBeGreaterThanOrEqual(8);
      for (const response of responses) {
        const sent = everythingSent(response);
        for (const secret of secrets) expect(sent).not.toContain(secret);
      }
    });
  });
});

describe('GET /menu (Form B): logs', () => {
  it('no password or token reaches a log line, whatever the outcome', async () => {
    const logged = await loggedTestRuntime({ menu: SAMPLE_MENU });
    try {
      const headers = formBHeaders(logged.seed);
      const get = (requestHeaders: Record<string, string | string[]>) =>
        logged.runtime.app.inject({ method: 'GET', url: '/menu', headers: requestHeaders });
      expect((await get(headers)).statusCode).toBe(200);
      expect((await get({ ...headers, password: 'wrong' })).statusCode).toBe(401);
      expect((await get({ ...headers, store: 'wrong' })).statusCode).toBe(403);
      expect((await get({ ...headers, store: [headers.store!, headers.store!] })).statusCode).toBe(400);
      expect((await get({ ...headers, password: `${headers.password}${'x'.repeat(300)}` })).statusCode).toBe(
        400,
      );
      expect(logged.lines.length).toBeGreaterThan(0);
      const log = logged.lines.join('');
      expect(log).toContain('/menu');
      expect(log).not.toContain(logged.seed.password);
      expect(log).not.toContain(logged.seed.token);
    } finally {
      await logged.close();
    }
  });
});
