import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime } from '../../helpers/admin.js';
import { expectError, expectInvalid } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const openAllWeek = () => Object.fromEntries(WEEK.map((day) => [day, { open: '09:00', close: '17:00' }]));

describe('sync API: dispensaries, errors', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let id: number;
  const read = async () => (await admin('GET', `/dispensaries/${id}`)).json();
  const count = async () => (await admin('GET', '/dispensaries')).json().length as number;

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    admin = (await adminKey(runtime)).call;
    id = runtime.seed.dispensaryId;
  });
  afterAll(() => runtime.close());

  describe('400: store information is validated, each problem names its field, nothing changes', () => {
    it.each([
      ['timezone', 'Mars/Olympus_Mons', 'must be an IANA time zone name such as America/Los_Angeles'],
      ['timezone', 'PST8PDT but longer', 'must be an IANA time zone name such as America/Los_Angeles'],
      ['currency', 'XXZ', 'must be an ISO 4217 currency code such as USD'],
      ['currency', 'dollars', 'must be an ISO 4217 currency code such as USD'],
      ['email', 'not-an-email', 'must be an e-mail address'],
      ['email', 'two@signs@example.com', 'must be an e-mail address'],
      ['website', 'ftp://example.com', 'must be an http or https URL'],
      ['logo', 'javascript:alert(1)', 'must be an http or https URL'],
      ['city', '', 'must be a non-empty string of at most 500 characters'],
      ['city', ' ', 'must be a non-empty string of at most 500 characters'],
      ['address', 'x'.repeat(501), 'must be a non-empty string of at most 500 characters'],
    ])('%s = %j', async (field, value, message) => {
      const before = await read();
      const error = expectInvalid(await admin('PATCH', `/dispensaries/${id}`, { [field]: value }), [
        { field, message },
      ]);
      expect(error.message).toContain('The store information was rejected');
      expect(await read()).toEqual(before);
    });

    it.each([
      ['city', 42, 'field must be string or null'],
      ['name', null, 'field must be string'],
      ['currency', null, 'field must be string'],
      ['published', 'yes', 'field must be boolean'],
    ])('a value of the wrong type, refused by the schema: %s = %j', async (field, value, message) => {
      const before = await read();
      expectInvalid(await admin('PATCH', `/dispensaries/${id}`, { [field]: value }), [{ field, message }]);
      expect(await read()).toEqual(before);
    });

    it('an unknown field is named, with the known ones (store and publishing fields)', async () => {
      const before = await read();
      const error = expectError(
        await admin('PATCH', `/dispensaries/${id}`, { phnoe: '+1 510 555 0199', city: 'Elsewhere' }),
        400,
        'invalid_request',
      );
      expect(error.problems).toEqual([
        { field: 'phnoe', message: expect.stringContaining('is unknown here') },
      ]);
      expect(error.problems![0]!.message).toContain('phone, email');
      expect(error.problems![0]!.message).toContain('show_stock');
      expect(await read()).toEqual(before);
    });

    it.each([
      ['not an object', 'always', [{ field: 'hours', message: 'field must be object or null' }]],
      ['an array', [], [{ field: 'hours', message: 'field must be object or null' }]],
      [
        'a missing day',
        Object.fromEntries(Object.entries(openAllWeek()).filter(([day]) => day !== 'sunday')),
        [{ field: 'hours', message: expect.stringContaining('has no sunday: the store has no hours yet') }],
      ],
      [
        'a day that is not a weekday',
        { ...openAllWeek(), funday: { closed: true } },
        [
          {
            field: 'hours.funday',
            message: expect.stringContaining('is unknown here (known: monday, tuesday'),
          },
        ],
      ],
      [
        'a time that is not HH:MM',
        { ...openAllWeek(), monday: { open: '9am', close: '17:00' } },
        [{ field: 'hours.monday', message: 'open and close must be HH:MM in 24-hour local time' }],
      ],
      [
        'hour 24',
        { ...openAllWeek(), tuesday: { open: '09:00', close: '24:00' } },
        [{ field: 'hours.tuesday', message: 'open and close must be HH:MM in 24-hour local time' }],
      ],
      [
        'closed false without times',
        { ...openAllWeek(), friday: { closed: false } },
        [
          {
            field: 'hours.friday',
            message: 'must be {"open": "HH:MM", "close": "HH:MM"} or {"closed": true}',
          },
        ],
      ],
    ])('hours: %s', async (_label, hours, problems) => {
      const before = await read();
      const error = expectError(
        await admin('PATCH', `/dispensaries/${id}`, { hours }),
        400,
        'invalid_request',
      );
      expect(error.problems).toEqual(problems);
      expect(await read()).toEqual(before);
    });

    it('several bad fields at once: each named, and a good field beside them is not applied', async () => {
      const before = await read();
      const error = expectError(
        await admin('PATCH', `/dispensaries/${id}`, {
          city: 'Good City',
          timezone: 'Nowhere/Special',
          currency: 'ABC',
          email: 'x',
        }),
        400,
        'invalid_request',
      );
      expect(error.problems!.map((problem) => problem.field)).toEqual(['timezone', 'currency', 'email']);
      expect(await read()).toEqual(before);
    });

    it('a body that is not an object', async () => {
      expectInvalid(await admin('PATCH', `/dispensaries/${id}`, []), [
        { field: 'body', message: 'must be a JSON object' },
      ]);
      expectError(await admin('PATCH', `/dispensaries/${id}`, '{"city": '), 400, 'invalid_request');
    });
  });

  describe('400: create is validated before anything is written', () => {
    it('a missing name', async () => {
      const before = await count();
      expectInvalid(await admin('POST', '/dispensaries', { city: 'Nowhere' }), [
        { field: 'name', message: 'field is required' },
      ]);
      expect(await count()).toBe(before);
    });

    it.each([
      ['empty', '', 'field must have at least 1 character'],
      ['201 characters', 'n'.repeat(201), 'field must have at most 200 characters'],
      ['a number', 7, 'field must be string'],
    ])('a name that is %s', async (_label, name, message) => {
      expectInvalid(await admin('POST', '/dispensaries', { name }), [{ field: 'name', message }]);
    });

    it('a name of only spaces', async () => {
      expectError(await admin('POST', '/dispensaries', { name: '   ' }), 400, 'invalid_request');
    });

    it('a bad store field: 400 naming it, and no dispensary (nor audit entry) is created', async () => {
      const [before, audited] = [await count(), (await auditLog(runtime)).length];
      expectInvalid(
        await admin('POST', '/dispensaries', { name: 'Half Made', timezone: 'Atlantis/Capital' }),
        [{ field: 'timezone', message: 'must be an IANA time zone name such as America/Los_Angeles' }],
      );
      expect(await count()).toBe(before);
      expect((await auditLog(runtime)).length).toBe(audited);
    });
  });

  describe('400: a malformed id in the path names it', () => {
    it.each(['0', '-1', 'abc', '1.5', '01', '12345678901', '1e3', '%20'])('%j', async (bad) => {
      for (const [method, path] of [
        ['GET', `/dispensaries/${bad}`],
        ['PATCH', `/dispensaries/${bad}`],
        ['POST', `/dispensaries/${bad}/rotate-token`],
        ['DELETE', `/dispensaries/${bad}`],
      ] as const) {
        const response = await admin(method, path, method === 'PATCH' ? { city: 'X' } : undefined);
        const error = expectError(response, 400, 'invalid_request');
        expect(error.problems?.[0]?.field).toBe('id');
      }
    });
  });

  describe('404: an id that is no dispensary', () => {
    it.each([
      ['GET', '/dispensaries/999', undefined],
      ['PATCH', '/dispensaries/999', { city: 'Nowhere' }],
      ['POST', '/dispensaries/999/rotate-token', undefined],
      ['DELETE', '/dispensaries/999', undefined],
    ] as const)('%s %s', async (method, path, body) => {
      const error = expectError(await admin(method, path, body), 404, 'not_found');
      expect(error.message).toContain('There is no dispensary 999');
    });

    it('deleting twice: 204, then 404', async () => {
      const created = (await admin('POST', '/dispensaries', { name: 'Twice' })).json();
      expect((await admin('DELETE', `/dispensaries/${created.id}`)).statusCode).toBe(204);
      expectError(await admin('DELETE', `/dispensaries/${created.id}`), 404, 'not_found');
    });
  });

  describe('rotate: a bad grace period', () => {
    it.each([-1, 1.5, 31 * 24 * 3600])(
      'grace_seconds %j: 400, and the token is not replaced',
      async (grace) => {
        const created = (await admin('POST', '/dispensaries', { name: `Grace ${grace}` })).json();
        const response = await admin('POST', `/dispensaries/${created.id}/rotate-token`, {
          grace_seconds: grace,
        });
        expectError(response, 400, 'invalid_request');
        const menu = await runtime.app.inject({
          method: 'GET',
          url: '/menu',
          headers: { store: created.token, username: runtime.seed.username, password: runtime.seed.password },
        });
        expect(menu.statusCode).toBe(200);
      },
    );
  });

  describe('Idempotency-Key', () => {
    it('create repeated with the same key and body: 409 (the token is not kept), and no second dispensary', async () => {
      const headers = { 'idempotency-key': 'create-once-1' };
      const first = await admin('POST', '/dispensaries', { name: 'Only Once' }, headers);
      expect(first.statusCode).toBe(201);
      const before = await count();
      const audited = (await auditLog(runtime)).length;
      const again = await admin('POST', '/dispensaries', { name: 'Only Once' }, headers);
      const error = expectError(again, 409, 'conflict');
      expect(error.message).toContain('already applied');
      expect(again.body).not.toContain(first.json().token);
      expect(await count()).toBe(before);
      expect((await auditLog(runtime)).length).toBe(audited);
      const named = (await admin('GET', '/dispensaries'))
        .json()
        .filter((d: { name: string }) => d.name === 'Only Once');
      expect(named.length).toBe(1);
    });

    it('the same key with another body: 422, and nothing is created', async () => {
      const headers = { 'idempotency-key': 'create-once-2' };
      expect((await admin('POST', '/dispensaries', { name: 'First Body' }, headers)).statusCode).toBe(201);
      const before = await count();
      const error = expectError(
        await admin('POST', '/dispensaries', { name: 'Second Body' }, headers),
        422,
        'unprocessable',
      );
      expect(error.message).toContain('different request');
      expect(await count()).toBe(before);
    });

    it('an update repeated: the first answer again, marked replayed, and nothing changes again', async () => {
      const headers = { 'idempotency-key': 'update-city-1' };
      const first = await admin('PATCH', `/dispensaries/${id}`, { city: 'Fresno' }, headers);
      expect(first.statusCode).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const audited = (await auditLog(runtime)).length;
      const stored = await read();
      // Someone else changes the city in between: the replay must not undo that.
      await admin('PATCH', `/dispensaries/${id}`, { city: 'Modesto' });
      const again = await admin('PATCH', `/dispensaries/${id}`, { city: 'Fresno' }, headers);
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      expect((await read()).store.city).toBe('Modesto');
      expect((await auditLog(runtime)).length).toBe(audited + 1);
      expect(stored.store.city).toBe('Fresno');
    });

    it('the same key on another path is another request: 422', async () => {
      const headers = { 'idempotency-key': 'update-city-2' };
      expect((await admin('PATCH', `/dispensaries/${id}`, { city: 'Reno' }, headers)).statusCode).toBe(200);
      const other = (await admin('POST', '/dispensaries', { name: 'Other Path' })).json();
      expectError(
        await admin('PATCH', `/dispensaries/${other.id}`, { city: 'Reno' }, headers),
        422,
        'unprocessable',
      );
      expect((await read()).store.city).toBe('Reno');
      expect((await admin('GET', `/dispensaries/${other.id}`)).json().store.city).toBeNull();
    });

    it('a delete repeated: 204 again (replayed), not 404', async () => {
      const created = (await admin('POST', '/dispensaries', { name: 'Delete Me' })).json();
      const headers = { 'idempotency-key': 'delete-1' };
      expect((await admin('DELETE', `/dispensaries/${created.id}`, undefined, headers)).statusCode).toBe(204);
      const again = await admin('DELETE', `/dispensaries/${created.id}`, undefined, headers);
      expect(again.statusCode).toBe(204);
      expect(again.headers['idempotent-replayed']).toBe('true');
    });

    it('a rejected write is not remembered: the same key may carry the corrected request', async () => {
      const headers = { 'idempotency-key': 'fix-and-retry' };
      expectError(
        await admin('PATCH', `/dispensaries/${id}`, { timezone: 'Bad/Zone' }, headers),
        400,
        'invalid_request',
      );
      const fixed = await admin('PATCH', `/dispensaries/${id}`, { timezone: 'America/Denver' }, headers);
      expect(fixed.statusCode).toBe(200);
      expect(fixed.json().store.timezone).toBe('America/Denver');
    });

    it('keys belong to one admin key: another admin key with the same Idempotency-Key runs its own request', async () => {
      const other = await adminKey(runtime);
      const headers = { 'idempotency-key': 'shared-name' };
      expect((await admin('PATCH', `/dispensaries/${id}`, { state: 'CA' }, headers)).statusCode).toBe(200);
      const response = await other.call('PATCH', `/dispensaries/${id}`, { state: 'NV' }, headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
      expect((await read()).store.state).toBe('NV');
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a space inside', 'two words'],
      ['non-ASCII', 'clé'],
    ])('an Idempotency-Key that is %s: 400, nothing written', async (_label, key) => {
      const before = await read();
      const response = await admin(
        'PATCH',
        `/dispensaries/${id}`,
        { city: 'Never' },
        {
          'idempotency-key': key === 'clé' ? Buffer.from(key).toString('latin1') : key,
        },
      );
      expectError(response, 400, 'invalid_request');
      expect(await read()).toEqual(before);
    });
  });
});
