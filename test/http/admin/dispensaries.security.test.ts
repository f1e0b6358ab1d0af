import { describe, expect, it } from 'vitest';
import { adminCaller, auditLog, expectNoSecrets } from '../../helpers/admin.js';
import { describeAdminKeyRefusals, securitySuite } from '../../helpers/admin-roles.js';
import { expectError, expectInvalid, formBHeaders, SQL_METACHARACTERS } from '../../helpers/http.js';
import { SAMPLE_MENU } from '../../helpers/runtime.js';

describe('sync API: dispensaries, security', () => {
  /** Dispensary 1 (the seed) and dispensary 2 (`other`), and a key limited to dispensary 1 (`scoped`). */
  const suite = securitySuite(
    { menu: SAMPLE_MENU },
    { other: { name: 'Second Shop', city: 'Salem' }, scopedName: 'shop-one-pos' },
  );
  /** Every secret handed out in this file, none of which may appear in the audit log or an error body. */
  const { watch } = suite;
  const { secrets, errorBodies, remember } = watch;
  const menuOf = (token: string) =>
    suite.runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders({ ...suite.runtime.seed, token }),
    });
  const snapshot = async () => ({
    list: (await suite.admin('GET', '/dispensaries')).json(),
    one: (await suite.admin('GET', `/dispensaries/${suite.runtime.seed.dispensaryId}`)).json(),
    two: (await suite.admin('GET', `/dispensaries/${suite.other.id}`)).json(),
    audit: (await auditLog(suite.runtime)).length,
  });

  describeAdminKeyRefusals({
    watch,
    context: () => ({ runtime: suite.runtime, key: suite.adminSecret, token: suite.runtime.seed.token }),
    routes: () => [
      ['GET', '/dispensaries', undefined],
      ['POST', '/dispensaries', { name: 'Intruder' }],
      ['GET', `/dispensaries/${suite.other.id}`, undefined],
      ['PATCH', `/dispensaries/${suite.other.id}`, { city: 'Hacked' }],
      ['POST', `/dispensaries/${suite.other.id}/rotate-token`, undefined],
      ['DELETE', `/dispensaries/${suite.other.id}`, undefined],
    ],
    state: snapshot,
    afterRevoked: (before) =>
      expect((before as { two: { store: { city: string } } }).two.store.city).toBe('Salem'),
  });

  describe('401: the Authorization header as RFC 7235 reads it', () => {
    it('the scheme name is case-insensitive (RFC 7235)', async () => {
      const response = await adminCaller(suite.runtime.app, null)('GET', '/dispensaries', undefined, {
        authorization: `bearer ${suite.adminSecret}`,
      });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('403: a key scoped to dispensary 1 touches nothing else', () => {
    it('its own dispensary: read and update work', async () => {
      const id = suite.runtime.seed.dispensaryId;
      expect((await suite.scoped('GET', `/dispensaries/${id}`)).statusCode).toBe(200);
      const updated = await suite.scoped('PATCH', `/dispensaries/${id}`, { phone: '555-0100' });
      expect(updated.statusCode, updated.body).toBe(200);
    });

    it('the list shows its own dispensary only', async () => {
      const list = (await suite.scoped('GET', '/dispensaries')).json();
      expect(list.map((entry: { id: number }) => entry.id)).toEqual([suite.runtime.seed.dispensaryId]);
    });

    it.each([
      ['read', 'GET', '', undefined],
      ['update', 'PATCH', '', { city: 'Taken Over' }],
      ['rotate the token of', 'POST', '/rotate-token', { grace_seconds: 0 }],
      ['delete', 'DELETE', '', undefined],
    ] as const)('cannot %s dispensary 2, and nothing changes', async (_label, method, suffix, body) => {
      const before = await snapshot();
      const error = expectError(
        remember(await suite.scoped(method, `/dispensaries/${suite.other.id}${suffix}`, body)),
        403,
        'forbidden',
      );
      // Delete needs scope all; the others name the one dispensary the key may touch.
      expect(error.message).toMatch(
        method === 'DELETE'
          ? /scope all/
          : new RegExp(`limited to dispensary ${suite.runtime.seed.dispensaryId}`),
      );
      expect(await snapshot()).toEqual(before);
      expect((await menuOf(suite.other.token)).statusCode).toBe(200);
    });

    it('the answer for a dispensary that does not exist is the same 403 (no probing of ids)', async () => {
      expectError(remember(await suite.scoped('GET', '/dispensaries/999')), 403, 'forbidden');
    });

    it('cannot create dispensaries (403), and none is created', async () => {
      const before = await snapshot();
      expectError(
        remember(await suite.scoped('POST', '/dispensaries', { name: 'Sneaky' })),
        403,
        'forbidden',
      );
      expect(await snapshot()).toEqual(before);
    });

    it('cannot delete even its own dispensary (that needs scope all)', async () => {
      const before = await snapshot();
      expectError(
        remember(await suite.scoped('DELETE', `/dispensaries/${suite.runtime.seed.dispensaryId}`)),
        403,
        'forbidden',
      );
      expect(await snapshot()).toEqual(before);
    });

    it('a scoped Idempotency-Key replay cannot reach another dispensary either', async () => {
      const headers = { 'idempotency-key': 'scoped-1' };
      expect(
        (
          await suite.scoped(
            'PATCH',
            `/dispensaries/${suite.runtime.seed.dispensaryId}`,
            { state: 'OR' },
            headers,
          )
        ).statusCode,
      ).toBe(200);
      expectError(
        remember(await suite.scoped('PATCH', `/dispensaries/${suite.other.id}`, { state: 'OR' }, headers)),
        403,
        'forbidden',
      );
      expect((await suite.admin('GET', `/dispensaries/${suite.other.id}`)).json().store.state).toBeNull();
    });
  });

  describe('SQL metacharacters: 4xx or stored as text, never 500, and the database is intact', () => {
    it.each(SQL_METACHARACTERS)('in the id of the path: %j', async (value) => {
      const path = `/dispensaries/${encodeURIComponent(value)}`;
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = remember(
          await suite.admin(method, path, method === 'PATCH' ? { city: 'x' } : undefined),
        );
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
      }
      const rotate = remember(await suite.admin('POST', `${path}/rotate-token`));
      expect(rotate.statusCode).toBeGreaterThanOrEqual(400);
      expect(rotate.statusCode).toBeLessThan(500);
    });

    it.each(SQL_METACHARACTERS.filter((value) => value.trim() !== '' && !value.includes('\0')))(
      'as a dispensary name and store text: %j is kept exactly',
      async (value) => {
        const created = remember(
          await suite.admin('POST', '/dispensaries', { name: value, city: value, address: value }),
        );
        expect(created.statusCode, created.body).toBe(201);
        const read = (await suite.admin('GET', `/dispensaries/${created.json().id}`)).json();
        expect(read.name).toBe(value.trim());
        expect(read.store.city).toBe(value.trim());
        const deleted = await suite.admin('DELETE', `/dispensaries/${created.json().id}`);
        expect(deleted.statusCode).toBe(204);
      },
    );

    it.each(SQL_METACHARACTERS)('as a store field name: %j is an unknown field (400)', async (name) => {
      const response = remember(
        await suite.admin('PATCH', `/dispensaries/${suite.other.id}`, { [name]: 'x' }),
      );
      expectError(response, 400, 'invalid_request');
    });

    it.each(['a\0b', '\0'])(
      'NUL (%j) in a name or store text: 400 naming it on every database, not a 500',
      async (value) => {
        const before = await snapshot();
        const created = remember(await suite.admin('POST', '/dispensaries', { name: value }));
        const error = expectError(created, 400, 'invalid_request');
        expect(error.message).toContain('NUL');
        expectInvalid(
          remember(await suite.admin('PATCH', `/dispensaries/${suite.other.id}`, { city: value })),
          [{ field: 'city', message: 'must not contain a NUL character' }],
        );
        expect(await snapshot()).toEqual(before);
      },
    );

    it('afterwards both dispensaries and their menus are as they were', async () => {
      const list = (await suite.admin('GET', '/dispensaries')).json();
      expect(list.map((entry: { id: number }) => entry.id)).toEqual(
        expect.arrayContaining([suite.runtime.seed.dispensaryId, suite.other.id]),
      );
      expect((await menuOf(suite.runtime.seed.token)).json().length).toBe(3);
      expect((await menuOf(suite.other.token)).json()).toEqual([]);
    });
  });

  describe('no secret is ever written down or echoed', () => {
    it('tokens from create and rotate are not in the audit log', async () => {
      const created = (await suite.admin('POST', '/dispensaries', { name: 'Secretive' })).json();
      const rotated = (
        await suite.admin('POST', `/dispensaries/${created.id}/rotate-token`, { grace_seconds: 0 })
      ).json();
      secrets.push(created.token, rotated.token);
      const text = JSON.stringify(await auditLog(suite.runtime));
      expectNoSecrets(text, secrets);
    });

    it('the audit log names keys by name only', async () => {
      const actors = new Set((await auditLog(suite.runtime)).map((entry) => entry.actor));
      expect(actors).toContain('key:operator');
      expect(actors).toContain('key:shop-one-pos');
    });

    it('no error body of this file carried a secret', () => {
      expect(errorBodies.length).toBeGreaterThan(50);
      expectNoSecrets(errorBodies.join('\n'), secrets);
    });
  });
});
