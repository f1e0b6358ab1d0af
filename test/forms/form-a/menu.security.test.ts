import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  everythingSent,
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formABody,
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
    prices: [{ unit: 'unit', amount: 10, price: 25 }],
  },
  { id: 50, name: 'Other Shop Hash', product_type: 'Concentrate', active: false, prices: [] },
];

type Item = { id: number; name: string };
const names = (response: LightMyRequestResponse) => (response.json() as Item[]).map((item) => item.name);

describe('POST /menu (Form A): security', () => {
  let runtime: TestRuntime;
  let body: Record<string, unknown>;
  /** Every secret issued in this file, checked against every response at the end. */
  const secrets: string[] = [];
  const responses: LightMyRequestResponse[] = [];
  const post = async (payload: unknown) => {
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
    responses.push(response);
    return response;
  };

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    body = formABody(runtime.seed);
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

  async function newCredential(username: string) {
    const credential = await runtime.services.credentials.issue(username);
    secrets.push(credential.password);
    return credential;
  }

  describe('dispensaries are isolated', () => {
    it("another dispensary's token returns that dispensary's menu only", async () => {
      const other = await secondDispensary('Other Collective');
      const ours = await post(body);
      const theirs = await post({ ...body, collective_token: other.token });
      expect(ours.statusCode).toBe(200);
      expect(theirs.statusCode).toBe(200);
      expect(names(theirs)).toEqual(['Other Shop Gummies']);
      expect(names(ours)).toEqual(['Fudge Brownie', 'Blue Dream', 'Vape Cart']);
      const everything = await post({ ...body, collective_token: other.token, active: false });
      expect(names(everything)).toEqual(['Other Shop Gummies', 'Other Shop Hash']);
      // Asked in the other order, with both menus now in memory: still no mixing.
      expect(names(await post({ ...body, active: false }))).toEqual([
        'Fudge Brownie',
        'Hidden Kush',
        'Blue Dream',
        'Vape Cart',
      ]);
      expect(names(await post({ ...body, collective_token: other.token }))).toEqual(['Other Shop Gummies']);
    });

    it("changing one dispensary's menu leaves the other's alone", async () => {
      const other = await secondDispensary('Third Collective');
      const before = await post(body);
      await runtime.services.menus.replace(other.id, []);
      expect(await post({ ...body, collective_token: other.token })).toMatchObject({
        statusCode: 200,
        body: '[]',
      });
      expect((await post(body)).body).toBe(before.body);
    });

    it("a removed dispensary's token gets 403 at once, even after it was used", async () => {
      const doomed = await secondDispensary('Doomed Collective');
      expect((await post({ ...body, collective_token: doomed.token })).statusCode).toBe(200);
      await runtime.services.dispensaries.remove(doomed.id);
      expectInvalidToken(await post({ ...body, collective_token: doomed.token }));
      expect((await post(body)).statusCode).toBe(200);
    });
  });

  describe('revoked credentials and rotated tokens', () => {
    it('a revoked credential gets 401 at once, even after it was used (and remembered)', async () => {
      const credential = await newCredential('soon-revoked');
      const asIt = { ...body, username: credential.username, password: credential.password };
      expect((await post(asIt)).statusCode).toBe(200);
      expect((await post(asIt)).statusCode).toBe(200);
      await runtime.services.credentials.revoke(credential.username);
      expectInvalidCredentials(await post(asIt));
      // No token oracle for a revoked credential: a wrong token gets the same 401.
      expectInvalidCredentials(await post({ ...asIt, collective_token: 'not-a-token' }));
      // Other credentials are untouched.
      expect((await post(body)).statusCode).toBe(200);
    });

    it('a remembered credential does not let a wrong password through', async () => {
      expect((await post(body)).statusCode).toBe(200);
      expectInvalidCredentials(await post({ ...body, password: `${body.password}x` }));
      expectInvalidCredentials(await post({ ...body, password: String(body.password).slice(0, -1) }));
      expectInvalidCredentials(await post({ ...body, password: String(body.password).toUpperCase() }));
    });

    it('a rotated token: the old one gets 403 at once, the new one 200', async () => {
      const dispensary = await secondDispensary('Rotating Collective');
      expect((await post({ ...body, collective_token: dispensary.token })).statusCode).toBe(200);
      const rotated = await runtime.services.dispensaries.rotateToken(dispensary.id, undefined, 0);
      secrets.push(rotated.token);
      expect(rotated.token).not.toBe(dispensary.token);
      expectInvalidToken(await post({ ...body, collective_token: dispensary.token }));
      const fresh = await post({ ...body, collective_token: rotated.token });
      expect(fresh.statusCode).toBe(200);
      expect(names(fresh)).toEqual(['Other Shop Gummies']);
      expectInvalidToken(await post({ ...body, collective_token: dispensary.token }));
    });

    it('wrong credentials cannot probe tokens: a valid and an invalid token get the same 401', async () => {
      const withValid = await post({ ...body, password: 'guess', collective_token: runtime.seed.token });
      const withInvalid = await post({ ...body, password: 'guess', collective_token: 'guess' });
      expectInvalidCredentials(withValid);
      expectInvalidCredentials(withInvalid);
      expect(withValid.json().error.message).toBe(withInvalid.json().error.message);
    });
  });

  describe('SQL metacharacters never reach SQL as code', () => {
    it.each(SQL_METACHARACTERS)('in username: %j gets 401', async (value) => {
      expectInvalidCredentials(await post({ ...body, username: value }));
    });

    it.each(SQL_METACHARACTERS)('in password: %j gets 401', async (value) => {
      expectInvalidCredentials(await post({ ...body, password: value }));
    });

    it.each(SQL_METACHARACTERS)('in collective_token: %j gets 403', async (value) => {
      expectInvalidToken(await post({ ...body, collective_token: value }));
    });

    it.each(SQL_METACHARACTERS)('in active: %j gets 400', async (value) => {
      expectInvalid(await post({ ...body, active: value }), [
        { field: 'active', message: 'field must be boolean' },
      ]);
    });

    it.each(SQL_METACHARACTERS)('in every field at once: %j gets 401', async (value) => {
      expectInvalidCredentials(await post({ username: value, password: value, collective_token: value }));
    });

    it.each(['integrato_', 'integrat%', '%', '_%', 'INTEGRATOR', 'integrator ', ' integrator'])(
      'username %j with the right password is not a pattern or a case-insensitive match',
      async (username) => {
        expectInvalidCredentials(await post({ ...body, username }));
      },
    );

    it.each(SQL_METACHARACTERS)('as an unknown extra field name %j: ignored', async (name) => {
      const response = await post({ ...body, [name]: name });
      expect(response.statusCode).toBe(200);
    });

    it('the database still answers the same afterwards', async () => {
      const response = await post({ ...body, active: false });
      expect(response.statusCode).toBe(200);
      expect(names(response)).toEqual(['Fudge Brownie', 'Hidden Kush', 'Blue Dream', 'Vape Cart']);
      const items = await runtime.services.store.menus.read(runtime.seed.dispensaryId);
      expect(items).toHaveLength(4);
      const credentials = await runtime.services.credentials.list();
      expect(credentials.map((credential) => credential.username)).toContain('integrator');
      expect((await runtime.services.dispensaries.list()).length).toBeGreaterThanOrEqual(1);
    });

    it('no response to any of it was a 500', () => {
      expect(responses.length).toBeGreaterThan(100);
      for (const response of responses) expect(response.statusCode).toBeLessThan(500);
    });
  });

  describe('unicode and very long values', () => {
    it.each(UNICODE_VALUES)('%j as username, password and token: 401 or 403, never 500', async (value) => {
      expectInvalidCredentials(await post({ ...body, username: value }));
      expectInvalidCredentials(await post({ ...body, password: value }));
      expectInvalidToken(await post({ ...body, collective_token: value }));
    });

    it('a credential whose password is unicode works, byte for byte', async () => {
      const password = 'pässwörd-😀-مرحبا-e\u0301';
      await runtime.services.credentials.issueWithPassword('unicode-user', password);
      secrets.push(password);
      const asIt = { ...body, username: 'unicode-user', password };
      expect((await post(asIt)).statusCode).toBe(200);
      // Another normalization of the same text is another password.
      expectInvalidCredentials(await post({ ...asIt, password: password.normalize('NFC') }));
    });

    it('length is counted in characters: 256 emoji are allowed, 257 are not', async () => {
      expectInvalidCredentials(await post({ ...body, password: '😀'.repeat(256) }));
      expectInvalid(await post({ ...body, password: '😀'.repeat(257) }), [
        { field: 'password', message: 'field must NOT have more than 256 characters' },
      ]);
    });

    it.each(['username', 'password', 'collective_token'])(
      'a 50,000-character %s gets 400 naming it',
      async (field) => {
        expectInvalid(await post({ ...body, [field]: 'é'.repeat(10_000) + 'x'.repeat(40_000) }), [
          { field, message: 'field must NOT have more than 256 characters' },
        ]);
      },
    );

    it('a very long field name is just an unknown field', async () => {
      const response = await post({ ...body, ['k'.repeat(50_000)]: 1 });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('secrets never travel back', () => {
    it('no password or token appears in any response body or header', async () => {
      // Responses that would be tempting places to echo input.
      await post({ ...body, password: `${body.password}-wrong` });
      await post({ ...body, collective_token: `${body.collective_token}-wrong` });
      await post({ ...body, password: `${body.password}${'x'.repeat(300)}` });
      await post({ ...body, active: body.password });
      await post({ username: body.password, password: body.collective_token, collective_token: 42 });
      const malformed = await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        headers: { 'content-type': 'application/json' },
        payload: `{"password": "${body.password}", "collective_token": "${body.collective_token}",`,
      });
      expectError(malformed, 400, 'invalid_request');
      const form = await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `${new URLSearchParams(body as Record<string, string>)}&password=${body.password}`,
      });
      expectError(form, 400, 'invalid_request');
      const xml = await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        headers: { 'content-type': 'application/xml' },
        payload: `<password>${body.password}</password>`,
      });
      expectError(xml, 415, 'unsupported_media_type');
      responses.push(malformed, form, xml);

      expect(secrets.length).toBeGreaterThanOrEqual(8);
      for (const response of responses) {
        const sent = everythingSent(response);
        for (const secret of secrets) expect(sent).not.toContain(secret);
      }
    });
  });
});

describe('POST /menu (Form A): logs', () => {
  it('no password or token reaches a log line, whatever the outcome', async () => {
    const logged = await loggedTestRuntime({ menu: SAMPLE_MENU });
    try {
      const body = formABody(logged.seed);
      const post = (payload: string) =>
        logged.runtime.app.inject({
          method: 'POST',
          url: '/menu',
          headers: { 'content-type': 'application/json' },
          payload,
        });
      expect((await post(JSON.stringify(body))).statusCode).toBe(200);
      expect((await post(JSON.stringify({ ...body, password: 'wrong' }))).statusCode).toBe(401);
      expect((await post(JSON.stringify({ ...body, collective_token: 'wrong' }))).statusCode).toBe(403);
      expect((await post(JSON.stringify({ ...body, active: 'x' }))).statusCode).toBe(400);
      expect((await post(`${JSON.stringify(body)}}`)).statusCode).toBe(400);
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
