import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, syncTestRuntime } from '../../helpers/admin.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

const STORE_FIELDS = [
  'name',
  'address',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'email',
  'website',
  'timezone',
  'license_number',
  'currency',
  'hours',
  'logo',
  'updated_at',
];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /store (Form B): happy paths', () => {
  let runtime: TestRuntime;
  let headers: Record<string, string>;
  let admin: AdminCall;
  const get = (requestHeaders: Record<string, string> = headers) =>
    runtime.app.inject({ method: 'GET', url: '/store', headers: requestHeaders });

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    headers = formBHeaders(runtime.seed);
    admin = (await adminKey(runtime)).call;
  });
  afterAll(() => runtime.close());

  it('a new dispensary: every field present, unknown ones null, currency USD', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const store = response.json();
    expect(Object.keys(store)).toEqual(STORE_FIELDS);
    expect(store).toEqual({
      name: 'Test Collective',
      address: null,
      city: null,
      state: null,
      postal_code: null,
      country: null,
      phone: null,
      email: null,
      website: null,
      timezone: null,
      license_number: null,
      currency: 'USD',
      hours: null,
      logo: null,
      updated_at: expect.stringMatching(ISO),
    });
  });

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
    const store = (await get({ ...headers, store: other.token })).json();
    expect(store).toMatchObject({ name: 'Second Shop', country: 'CA', city: null, currency: 'USD' });
    expect((await get()).json().city).toBe('Portland');
  });

  it('a query string changes nothing', async () => {
    const response = await runtime.app.inject({ method: 'GET', url: '/store?since=x&active=false', headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual((await get()).json());
  });
});
