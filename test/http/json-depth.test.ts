import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/http/pipeline/json-depth.js';
import { adminKey, UNLIMITED } from '../helpers/admin.js';
import { expectError } from '../helpers/http.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

describe('the JSON nesting limit', () => {
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":{"b":{"c":1}}}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":"[[[[[[[[[["}', 1)).toBe(false);
    expect(nestedDeeperThan('{"a":"\\"[[[[[[","b":1}', 1)).toBe(false);
    expect(nestedDeeperThan('[{"a":"\\\\"},[[[1]]]]', 3)).toBe(true);
  });

  describe('on the sync API', () => {
    let runtime: TestRuntime;
    beforeAll(async () => {
      runtime = await testRuntime({ config: UNLIMITED });
    });
    afterAll(async () => {
      await runtime?.close();
    });

    it('refuses a body nested deeper than the limit with 400, and accepts a real menu', async () => {
      const { call } = await adminKey(runtime, 'all');
      const depth = 20_000;
      const deep = `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
      const refused = await call('PUT', `/dispensaries/${runtime.seed.dispensaryId}/menu`, deep, {
        'idempotency-key': 'deep-1',
      });
      expect(expectError(refused, 400, 'invalid_request').message).toContain(`${MAX_JSON_DEPTH} levels`);
      const patched = await call(
        'PATCH',
        `/dispensaries/${runtime.seed.dispensaryId}`,
        `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      );
      expectError(patched, 400, 'invalid_request');
      const menu = [
        { name: 'Nested enough', product_type: 'Flower', prices: [{ unit: 'gram', amount: 1, price: 10 }] },
      ];
      expect((await call('PUT', `/dispensaries/${runtime.seed.dispensaryId}/menu`, menu)).statusCode).toBe(
        200,
      );
      // Prototype-poisoning checks of Fastify's own parser are still there.
      expectError(
        await call('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, '{"__proto__":{"x":1}}'),
        400,
        'invalid_request',
      );
    });

    it('answers a JSON body sent as text/plain with 415, like any content type it does not read', async () => {
      const { call } = await adminKey(runtime, 'all');
      const menu = JSON.stringify([{ name: 'Plain', product_type: 'Flower', prices: [] }]);
      const response = await call('PUT', `/dispensaries/${runtime.seed.dispensaryId}/menu`, menu, {
        'content-type': 'text/plain',
      });
      expectError(response, 415, 'unsupported_media_type');
    });
  });

  describe('on Form A', () => {
    let runtime: TestRuntime;
    beforeAll(async () => {
      runtime = await testRuntime();
    });
    afterAll(async () => {
      await runtime?.close();
    });

    it.each(['application/json', 'text/plain', undefined])(
      'refuses a body with a deeply nested extra field (%s) with 400, and reads a plain one',
      async (contentType) => {
        const { token, username, password } = runtime.seed;
        const depth = 10_000;
        const credentials = JSON.stringify({ username, password, collective_token: token });
        const deep = `${credentials.slice(0, -1)},"extra":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
        const headers = contentType ? { 'content-type': contentType } : {};
        const refused = await runtime.app.inject({ method: 'POST', url: '/menu', headers, payload: deep });
        expect(expectError(refused, 400, 'invalid_request').message).toContain(`${MAX_JSON_DEPTH} levels`);
        const read = await runtime.app.inject({
          method: 'POST',
          url: '/menu',
          headers,
          payload: credentials,
        });
        expect(read.statusCode, read.body).toBe(200);
      },
    );
  });
});
