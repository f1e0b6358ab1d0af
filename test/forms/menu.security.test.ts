import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asHeaderBytes,
  everythingSent,
  expectError,
  expectInvalid,
  expectInvalidCredentials,
  expectInvalidToken,
  formABody,
  formBHeaders,
  loggedTestRuntime,
  SQL_METACHARACTERS,
  UNICODE_VALUES,
} from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { FORM_DRIVERS } from './driver.js';

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
const ALL_OUR_ITEMS = ['Fudge Brownie', 'Hidden Kush', 'Blue Dream', 'Vape Cart'];

/**
 * A value far over the 256-character limit, as each form can carry it: a JSON field takes 50,000
 * characters (counted in characters, not bytes); a header value stays under Node's 16 KiB header limit.
 */
const TOO_LONG = {
  a: { title: '50,000-character', value: 'é'.repeat(10_000) + 'x'.repeat(40_000) },
  b: { title: '8,000-character', value: 'z'.repeat(8000) },
};

describe.each(FORM_DRIVERS)('$id: /menu security', (form) => {
  describe(`${form.title('/menu')}: security`, () => {
    let runtime: TestRuntime;
    /** This form's credentials and token for the seed. */
    let good: Record<string, string>;
    /** Every secret issued in this suite, checked against every response at the end. */
    const secrets: string[] = [];
    const responses: LightMyRequestResponse[] = [];
    const ask = async (credentials: Record<string, unknown>, parameters?: Record<string, unknown>) => {
      const response = await form.send(runtime, '/menu', { credentials, parameters });
      responses.push(response);
      return response;
    };
    /** The seed's credentials with some replaced. */
    const askWith = (overrides: Record<string, unknown>, parameters?: Record<string, unknown>) =>
      ask({ ...good, ...overrides }, parameters);
    const withToken = (token: unknown) => ({ [form.token]: token });

    beforeAll(async () => {
      runtime = await testRuntime({ menu: SAMPLE_MENU });
      good = form.credentials(runtime.seed);
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
        const ours = await askWith({});
        const theirs = await askWith(withToken(other.token));
        expect(ours.statusCode).toBe(200);
        expect(theirs.statusCode).toBe(200);
        expect(names(ours)).toEqual(OUR_ACTIVE_ITEMS);
        expect(names(theirs)).toEqual(['Other Shop Gummies']);
        if (form.id === 'a') {
          const everything = await askWith(withToken(other.token), { active: false });
          expect(names(everything)).toEqual(['Other Shop Gummies', 'Other Shop Hash']);
          // Asked in the other order, with both menus now in memory: still no mixing.
          expect(names(await askWith({}, { active: false }))).toEqual(ALL_OUR_ITEMS);
        }
        if (form.id === 'b') {
          expect(theirs.json()).toEqual([
            expect.objectContaining({
              id: 1,
              name: 'Other Shop Gummies',
              brand: 'Other Brand',
              prices: [{ unit: 'unit', amount: 10, price: 25, stock: 3 }],
            }),
          ]);
        }
        // Item id 1 exists in both menus: each dispensary still sees its own.
        expect(names(await askWith({}))).toEqual(OUR_ACTIVE_ITEMS);
        expect(names(await askWith(withToken(other.token)))).toEqual(['Other Shop Gummies']);
      });

      it("changing one dispensary's menu leaves the other's alone", async () => {
        const other = await secondDispensary('Third Collective');
        const before = await askWith({});
        await runtime.services.menus.replace(other.id, []);
        expect(await askWith(withToken(other.token))).toMatchObject({ statusCode: 200, body: '[]' });
        expect((await askWith({})).body).toBe(before.body);
      });

      it("a removed dispensary's token gets 403 at once, even after it was used", async () => {
        const doomed = await secondDispensary('Doomed Collective');
        expect((await askWith(withToken(doomed.token))).statusCode).toBe(200);
        await runtime.services.dispensaries.remove(doomed.id);
        expectInvalidToken(await askWith(withToken(doomed.token)));
        const ours = await askWith({});
        expect(ours.statusCode).toBe(200);
        expect(names(ours)).toEqual(OUR_ACTIVE_ITEMS);
      });
    });

    describe('revoked credentials and rotated tokens', () => {
      it('a revoked credential gets 401 at once, even after it was used (and remembered)', async () => {
        const credential = await newCredential('soon-revoked');
        const asIt = { ...good, username: credential.username, password: credential.password };
        expect((await ask(asIt)).statusCode).toBe(200);
        expect((await ask(asIt)).statusCode).toBe(200);
        await runtime.services.credentials.revoke(credential.username);
        expectInvalidCredentials(await ask(asIt));
        // No token oracle for a revoked credential: a wrong token gets the same 401.
        expectInvalidCredentials(await ask({ ...asIt, ...withToken('not-a-token') }));
        // Other credentials are untouched.
        expect((await askWith({})).statusCode).toBe(200);
      });

      if (form.id === 'b') {
        it('a credential revoked in Form B is revoked in Form A too', async () => {
          const credential = await newCredential('revoked-everywhere');
          const formA = {
            username: credential.username,
            password: credential.password,
            collective_token: good.store,
          };
          expect(
            (await runtime.app.inject({ method: 'POST', url: '/menu', payload: formA })).statusCode,
          ).toBe(200);
          await runtime.services.credentials.revoke(credential.username);
          expectInvalidCredentials(
            await askWith({ username: credential.username, password: credential.password }),
          );
          expectInvalidCredentials(
            await runtime.app.inject({ method: 'POST', url: '/menu', payload: formA }),
          );
        });
      }

      it('a remembered credential does not let a wrong password through', async () => {
        const password = good.password!;
        expect((await askWith({})).statusCode).toBe(200);
        expectInvalidCredentials(await askWith({ password: `${password}x` }));
        expectInvalidCredentials(await askWith({ password: password.slice(0, -1) }));
        expectInvalidCredentials(await askWith({ password: password.slice(1) }));
        expectInvalidCredentials(await askWith({ password: password.toUpperCase() }));
      });

      it('a rotated token: the old one gets 403 at once, the new one 200', async () => {
        const dispensary = await secondDispensary('Rotating Collective');
        expect((await askWith(withToken(dispensary.token))).statusCode).toBe(200);
        const rotated = await runtime.services.dispensaries.rotateToken(dispensary.id, undefined, 0);
        secrets.push(rotated.token);
        expect(rotated.token).not.toBe(dispensary.token);
        expectInvalidToken(await askWith(withToken(dispensary.token)));
        const fresh = await askWith(withToken(rotated.token));
        expect(fresh.statusCode).toBe(200);
        expect(names(fresh)).toEqual(['Other Shop Gummies']);
        expectInvalidToken(await askWith(withToken(dispensary.token)));
        // Rotating again retires the second token as well.
        const again = await runtime.services.dispensaries.rotateToken(dispensary.id, undefined, 0);
        secrets.push(again.token);
        expectInvalidToken(await askWith(withToken(rotated.token)));
        expect((await askWith(withToken(again.token))).statusCode).toBe(200);
      });

      it('wrong credentials cannot probe tokens: a valid and an invalid token get the same 401', async () => {
        const withValid = await askWith({ password: 'guess', ...withToken(runtime.seed.token) });
        const withInvalid = await askWith({ password: 'guess', ...withToken('guess') });
        expectInvalidCredentials(withValid);
        expectInvalidCredentials(withInvalid);
        expect(withValid.json().error.message).toBe(withInvalid.json().error.message);
      });
    });

    describe('SQL metacharacters never reach SQL as code', () => {
      it.each(SQL_METACHARACTERS)('in username: %j gets 401', async (value) => {
        expectInvalidCredentials(await askWith({ username: value }));
      });

      it.each(SQL_METACHARACTERS)('in password: %j gets 401', async (value) => {
        expectInvalidCredentials(await askWith({ password: value }));
      });

      it.each(SQL_METACHARACTERS)(`in ${form.token}: %j gets 403`, async (value) => {
        expectInvalidToken(await askWith(withToken(value)));
      });

      it.each(SQL_METACHARACTERS)(`in every ${form.secretCarrier} at once: %j gets 401`, async (value) => {
        expectInvalidCredentials(await ask({ username: value, password: value, ...withToken(value) }));
      });

      if (form.id === 'a') {
        it.each(SQL_METACHARACTERS)('in active: %j gets 400', async (value) => {
          expectInvalid(await askWith({}, { active: value }), [
            { field: 'active', message: 'field must be boolean' },
          ]);
        });

        it.each(SQL_METACHARACTERS)('as an unknown extra field name %j: ignored', async (name) => {
          const response = await askWith({ [name]: name });
          expect(response.statusCode).toBe(200);
        });
      }

      if (form.id === 'b') {
        it.each(SQL_METACHARACTERS)(
          'in the query string: %j is refused as an unknown parameter',
          async (value) => {
            const response = await askWith({}, { store: value, id: value });
            expect(response.statusCode).toBe(400);
            expect(response.json().error.message).toContain('does not take the query parameter "store"');
          },
        );
      }

      it.each(['integrato_', 'integrat%', '%', '_%', 'INTEGRATOR', 'integrator ', ' integrator'])(
        'username %j with the right password is not a pattern or a case-insensitive match',
        async (username) => {
          expectInvalidCredentials(await askWith({ username }));
        },
      );

      it('the database still answers the same afterwards', async () => {
        const response = await askWith({});
        expect(response.statusCode).toBe(200);
        expect(names(response)).toEqual(OUR_ACTIVE_ITEMS);
        if (form.id === 'a') expect(names(await askWith({}, { active: false }))).toEqual(ALL_OUR_ITEMS);
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
      it.each(UNICODE_VALUES)(
        `%j (as text) in each ${form.secretCarrier}: 401 or 403, never 500`,
        async (value) => {
          expectInvalidCredentials(await askWith({ username: value }));
          expectInvalidCredentials(await askWith({ password: value }));
          expectInvalidToken(await askWith(withToken(value)));
        },
      );

      it.each(form.secrets)(`a ${TOO_LONG[form.id].title} %s gets 400 naming it`, async (name) => {
        expectInvalid(await askWith({ [name]: TOO_LONG[form.id].value }), [
          { field: name, message: `${form.secretCarrier} must have at most 256 characters` },
        ]);
      });

      if (form.id === 'a') {
        it('a credential whose password is unicode works, byte for byte', async () => {
          const password = 'pässwörd-😀-مرحبا-e\u0301';
          await runtime.services.credentials.issueWithPassword('unicode-user', password);
          secrets.push(password);
          const asIt = { ...good, username: 'unicode-user', password };
          expect((await ask(asIt)).statusCode).toBe(200);
          // Another normalization of the same text is another password.
          expectInvalidCredentials(await ask({ ...asIt, password: password.normalize('NFC') }));
        });

        it('length is counted in characters: 256 emoji are allowed, 257 are not', async () => {
          expectInvalidCredentials(await askWith({ password: '😀'.repeat(256) }));
          expectInvalid(await askWith({ password: '😀'.repeat(257) }), [
            { field: 'password', message: 'field must have at most 256 characters' },
          ]);
        });

        it('a very long field name is just an unknown field', async () => {
          const response = await askWith({ ['k'.repeat(50_000)]: 1 });
          expect(response.statusCode).toBe(200);
        });
      }

      if (form.id === 'b') {
        it.each(UNICODE_VALUES)(
          '%j (as UTF-8 bytes) in each header: 401 or 403, never 500',
          async (value) => {
            const bytes = asHeaderBytes(value);
            expectInvalidCredentials(await askWith({ username: bytes }));
            expectInvalidCredentials(await askWith({ password: bytes }));
            expectInvalidToken(await askWith({ store: bytes }));
          },
        );

        it('a header is measured as received: 64 emoji (256 bytes) pass, 65 do not', async () => {
          expectInvalidCredentials(await askWith({ password: asHeaderBytes('😀'.repeat(64)) }));
          expectInvalid(await askWith({ password: asHeaderBytes('😀'.repeat(65)) }), [
            { field: 'password', message: 'header must have at most 256 characters' },
          ]);
        });
      }
    });

    describe('secrets never travel back', () => {
      it('no password or token appears in any response body or header', async () => {
        const { password } = good;
        const token = good[form.token]!;
        // Responses that would be tempting places to echo input.
        await askWith({ password: `${password}-wrong` });
        await askWith(withToken(`${token}-wrong`));
        await askWith({ password: `${password}${'x'.repeat(300)}` });
        await ask({ username: password, password: token, ...withToken(token) });
        if (form.id === 'a') {
          await askWith({}, { active: password });
          await ask({ username: password, password: token, collective_token: 42 });
          const send = (contentType: string, payload: string) =>
            runtime.app.inject({
              method: 'POST',
              url: '/menu',
              headers: { 'content-type': contentType },
              payload,
            });
          const malformed = await send(
            'application/json',
            `{"password": "${password}", "collective_token": "${token}",`,
          );
          expectError(malformed, 400, 'invalid_request');
          const formBody = await send(
            'application/x-www-form-urlencoded',
            `${new URLSearchParams(good)}&password=${password}`,
          );
          expectError(formBody, 400, 'invalid_request');
          const xml = await send('application/xml', `<password>${password}</password>`);
          expectError(xml, 415, 'unsupported_media_type');
          responses.push(malformed, formBody, xml);
        }
        if (form.id === 'b') {
          await ask({ store: password, username: token, password: token });
          const repeated = await runtime.app.inject({
            method: 'GET',
            url: '/menu',
            headers: { ...good, password: [password!, password!] },
          });
          expectError(repeated, 400, 'invalid_request');
          const head = await runtime.app.inject({ method: 'HEAD', url: '/menu', headers: good });
          expect(head.statusCode).toBe(200);
          responses.push(repeated, head);
        }

        expect(secrets.length).toBeGreaterThanOrEqual(8);
        for (const response of responses) {
          const sent = everythingSent(response);
          for (const secret of secrets) expect(sent).not.toContain(secret);
        }
      });
    });
  });

  describe(`${form.title('/menu')}: logs`, () => {
    it('no password or token reaches a log line, whatever the outcome', async () => {
      const logged = await loggedTestRuntime({ menu: SAMPLE_MENU });
      try {
        const good = form.credentials(logged.seed);
        const ask = (credentials: Record<string, unknown>, parameters?: Record<string, unknown>) =>
          form.send(logged.runtime, '/menu', { credentials, parameters });
        expect((await ask(good)).statusCode).toBe(200);
        expect((await ask({ ...good, password: 'wrong' })).statusCode).toBe(401);
        expect((await ask({ ...good, [form.token]: 'wrong' })).statusCode).toBe(403);
        if (form.id === 'a') {
          const body = formABody(logged.seed);
          expect((await ask(good, { active: 'x' })).statusCode).toBe(400);
          const malformed = await logged.runtime.app.inject({
            method: 'POST',
            url: '/menu',
            headers: { 'content-type': 'application/json' },
            payload: `${JSON.stringify(body)}}`,
          });
          expect(malformed.statusCode).toBe(400);
        }
        if (form.id === 'b') {
          const headers = formBHeaders(logged.seed);
          const repeated = await logged.runtime.app.inject({
            method: 'GET',
            url: '/menu',
            headers: { ...headers, store: [headers.store!, headers.store!] },
          });
          expect(repeated.statusCode).toBe(400);
          expect((await ask({ ...good, password: `${good.password}${'x'.repeat(300)}` })).statusCode).toBe(
            400,
          );
        }
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
});
