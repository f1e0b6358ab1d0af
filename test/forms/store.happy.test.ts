import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_INFO_FIELDS, WEEKDAYS } from '../../src/domain/store-info.js';
import { type AdminCall, adminKey, syncTestRuntime } from '../helpers/admin.js';
import { UNSET_STORE_INFO } from '../helpers/fixtures.js';
import { formABody, postForm } from '../helpers/http.js';
import type { TestRuntime } from '../helpers/runtime.js';
import { FORM_DRIVERS } from './driver.js';

/** Every field of /store's answer, in order: the fields a client may set, then the time of the last change. */
/** Every store field answered; menu_types is left out until the store sets it (the answers stay as they were). */
const STORE_FIELDS = [
  ...Object.keys(STORE_INFO_FIELDS).filter((field) => field !== 'menu_types'),
  'updated_at',
];

const HOURS = {
  monday: { open: '09:00', close: '21:00' },
  tuesday: { open: '09:00', close: '21:00' },
  wednesday: { open: '09:00', close: '21:00' },
  thursday: { open: '09:00', close: '21:00' },
  friday: { open: '10:00', close: '02:00' },
  saturday: { open: '10:00', close: '23:30' },
  sunday: { closed: true },
};

const FULL_STORE = {
  address: '1 Main St',
  city: 'Oakland',
  state: 'CA',
  postal_code: '94607',
  country: 'US',
  phone: '+1 510 555 0100',
  email: 'hello@greenleaf.example',
  website: 'https://greenleaf.example',
  timezone: 'America/Los_Angeles',
  license_number: 'C10-0000001-LIC',
  currency: 'CAD',
  hours: HOURS,
  logo: 'https://greenleaf.example/logo.png',
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(FORM_DRIVERS)('$id: /store happy paths', (form) => {
  let runtime: TestRuntime;
  let good: Record<string, string>;
  let admin: AdminCall;
  const send = (credentials: Record<string, unknown> = good) => form.send(runtime, '/store', { credentials });

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    good = form.credentials(runtime.seed);
    admin = (await adminKey(runtime)).call;
  });
  afterAll(() => runtime.close());

  describe(`${form.title('/store')}`, () => {
    it('a new dispensary: every field present, unknown ones null, currency USD', async () => {
      const response = await send();
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const store = response.json();
      expect(Object.keys(store)).toEqual(STORE_FIELDS);
      expect(store).toEqual({
        name: 'Test Collective',
        ...UNSET_STORE_INFO,
        updated_at: expect.stringMatching(ISO),
      });
    });

    // Each form's cases below run in order on one dispensary: each builds on the state the one before left.
    if (form.id === 'a') {
      const post = send;
      it('every field set: each returned as set, hours per weekday with open, close and closed', async () => {
        await runtime.services.dispensaries.updateStoreInfo(runtime.seed.dispensaryId, FULL_STORE);
        const store = (await post()).json();
        expect(Object.keys(store)).toEqual(STORE_FIELDS);
        expect(store).toMatchObject({ ...FULL_STORE, name: 'Test Collective', hours: expect.any(Object) });
        expect(store.hours).toEqual({
          monday: { open: '09:00', close: '21:00', closed: false },
          tuesday: { open: '09:00', close: '21:00', closed: false },
          wednesday: { open: '09:00', close: '21:00', closed: false },
          thursday: { open: '09:00', close: '21:00', closed: false },
          friday: { open: '10:00', close: '02:00', closed: false },
          saturday: { open: '10:00', close: '23:30', closed: false },
          sunday: { open: null, close: null, closed: true },
        });
        expect(Object.keys(store.hours)).toEqual(WEEKDAYS);
      });

      it('a change through the sync API is answered on the very next request, with a later updated_at', async () => {
        const before = (await post()).json();
        await new Promise((resolve) => setTimeout(resolve, 5));
        const patched = await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
          city: 'Berkeley',
          phone: null,
          currency: 'EUR',
        });
        expect(patched.statusCode).toBe(200);
        const after = (await post()).json();
        expect(after).toMatchObject({ city: 'Berkeley', phone: null, currency: 'EUR', address: '1 Main St' });
        expect(after.updated_at > before.updated_at).toBe(true);
      });

      it('clearing a field with null makes it null again; currency cannot be cleared and stays', async () => {
        await runtime.services.dispensaries.updateStoreInfo(runtime.seed.dispensaryId, {
          hours: null,
          website: null,
        });
        const store = (await post()).json();
        expect(store.hours).toBeNull();
        expect(store.website).toBeNull();
        expect(store.currency).toBe('EUR');
      });

      it('the name is the dispensary name, and renaming shows at once', async () => {
        await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, { name: 'Green Leaf' });
        expect((await post()).json().name).toBe('Green Leaf');
      });

      it('each token answers with its own dispensary', async () => {
        const other = await runtime.services.dispensaries.createWithStore('Other Shop', { city: 'Fresno' });
        const store = (await post({ ...good, collective_token: other.token })).json();
        expect(store).toMatchObject({ name: 'Other Shop', city: 'Fresno', currency: 'USD', address: null });
        expect((await post()).json().name).toBe('Green Leaf');
      });

      it('accepts a urlencoded form, and ignores unknown extra fields such as active', async () => {
        const response = await postForm(runtime.app, '/store', good as Record<string, string>);
        expect(response.statusCode).toBe(200);
        const extra = await post({ ...good, active: false, since: 'whenever' });
        expect(extra.statusCode).toBe(200);
        expect(extra.json()).toEqual(response.json());
      });
    }

    if (form.id === 'b') {
      const get = send;
      it('some fields set through the sync API: those set, the rest still null, hours per weekday', async () => {
        const patched = await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
          city: 'Portland',
          state: 'OR',
          timezone: 'America/Los_Angeles',
          hours: {
            monday: { open: '08:00', close: '22:00' },
            tuesday: { open: '08:00', close: '22:00' },
            wednesday: { closed: true },
            thursday: { open: '08:00', close: '22:00' },
            friday: { open: '08:00', close: '01:00' },
            saturday: { open: '00:00', close: '23:59' },
            sunday: { closed: true },
          },
        });
        expect(patched.statusCode).toBe(200);
        const store = (await get()).json();
        expect(Object.keys(store)).toEqual(STORE_FIELDS);
        expect(store).toMatchObject({
          city: 'Portland',
          state: 'OR',
          timezone: 'America/Los_Angeles',
          address: null,
          email: null,
          currency: 'USD',
        });
        expect(store.hours.wednesday).toEqual({ open: null, close: null, closed: true });
        expect(store.hours.friday).toEqual({ open: '08:00', close: '01:00', closed: false });
        for (const day of Object.values(store.hours) as Record<string, unknown>[])
          expect(Object.keys(day).sort()).toEqual(['close', 'closed', 'open']);
      });

      it('Form A and Form B answer the same object', async () => {
        const formA = await runtime.app.inject({
          method: 'POST',
          url: '/store',
          payload: formABody(runtime.seed),
        });
        expect((await get()).json()).toEqual(formA.json());
      });

      it('a currency change is answered on the very next request', async () => {
        await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, { currency: 'MXN' });
        expect((await get()).json().currency).toBe('MXN');
        await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, { currency: 'USD' });
        expect((await get()).json().currency).toBe('USD');
      });

      it('each token answers with its own dispensary', async () => {
        const other = await runtime.services.dispensaries.createWithStore('Second Shop', { country: 'CA' });
        const store = (await get({ ...good, store: other.token })).json();
        expect(store).toMatchObject({ name: 'Second Shop', country: 'CA', city: null, currency: 'USD' });
        expect((await get()).json().city).toBe('Portland');
      });

      it('an unknown query parameter is refused with 400, naming it (never silently ignored)', async () => {
        const parameters = { since: 'x', active: 'false' };
        const response = await form.send(runtime, '/store', { credentials: good, parameters });
        expect(response.statusCode).toBe(400);
        expect(response.json().error.message).toBe(
          'GET /store does not take the query parameter "since" (it takes none).',
        );
      });
    }
  });
});
