import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime, tick } from '../../helpers/admin.js';
import { UNSET_STORE_INFO } from '../../helpers/fixtures.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The seeded dispensary's times and publishing, as its detail and its list entry both show them. */
const SEEDED_UNPUBLISHED = {
  created_at: expect.stringMatching(ISO),
  updated_at: expect.stringMatching(ISO),
  published: false,
  slug: null,
  show_stock: false,
  show_regular_price: true,
  show_potency: true,
};

describe('sync API: dispensaries, happy paths', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let keyName: string;
  const formBMenu = (token: string) =>
    runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders({ ...runtime.seed, token }) });
  const formAStore = (token: string) =>
    runtime.app.inject({ method: 'POST', url: '/store', payload: formABody({ ...runtime.seed, token }) });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    ({ call: admin, name: keyName } = await adminKey(runtime, 'all', 'pos-main'));
  });
  afterAll(() => runtime.close());

  describe('create', () => {
    it('201 with the id, the name, the token (once) and the store information', async () => {
      const response = await admin('POST', '/dispensaries', { name: 'Green Leaf' });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const created = response.json();
      expect(Object.keys(created)).toEqual(['id', 'name', 'token', 'store']);
      expect(created).toEqual({
        id: expect.any(Number),
        name: 'Green Leaf',
        token: expect.any(String),
        store: { name: 'Green Leaf', ...UNSET_STORE_INFO, updated_at: expect.stringMatching(ISO) },
      });
      expect(created.token.length).toBeGreaterThanOrEqual(20);
      // The token works at once for an integrator; the new menu is empty.
      const menu = await formBMenu(created.token);
      expect(menu.statusCode).toBe(200);
      expect(menu.json()).toEqual([]);
      // And it is never shown again.
      const read = await admin('GET', `/dispensaries/${created.id}`);
      const list = await admin('GET', '/dispensaries');
      expect(read.body).not.toContain(created.token);
      expect(list.body).not.toContain(created.token);
    });

    it('with store fields: they are validated, stored and answered', async () => {
      const response = await admin('POST', '/dispensaries', {
        name: 'Harbor Cannabis',
        city: 'Seattle',
        state: 'WA',
        timezone: 'America/Los_Angeles',
        currency: 'CAD',
        hours: Object.fromEntries(
          ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
            day,
            day === 'sunday' ? { closed: true } : { open: '09:00', close: '21:00' },
          ]),
        ),
      });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json();
      expect(created.store).toMatchObject({ city: 'Seattle', state: 'WA', currency: 'CAD', phone: null });
      expect(created.store.hours.sunday).toEqual({ open: null, close: null, closed: true });
      const store = await formAStore(created.token);
      expect(store.json()).toEqual(created.store);
    });

    it('a name need not be unique: a second dispensary of the same name is 201, as the document says', async () => {
      const first = await admin('POST', '/dispensaries', { name: 'Twin Pines' });
      const second = await admin('POST', '/dispensaries', { name: 'Twin Pines' });
      expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
      expect(second.json().id).not.toBe(first.json().id);
      const document = (await runtime.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const create = document.paths['/admin/v1/dispensaries'].post;
      expect(create.description).toContain('need not be unique');
      const conflict = document.components.responses.Conflict.description as string;
      expect(conflict).toContain('dispensary names need not be unique');
      expect(conflict).not.toMatch(/^conflict: the name exists already/);
    });

    it('two dispensaries get different tokens and ids', async () => {
      const first = (await admin('POST', '/dispensaries', { name: 'Twin' })).json();
      const second = (await admin('POST', '/dispensaries', { name: 'Twin' })).json();
      expect(first.id).not.toBe(second.id);
      expect(first.token).not.toBe(second.token);
    });
  });

  describe('read', () => {
    it('one dispensary: id, name, times and its store information', async () => {
      const response = await admin('GET', `/dispensaries/${runtime.seed.dispensaryId}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: runtime.seed.dispensaryId,
        name: 'Test Collective',
        ...SEEDED_UNPUBLISHED,
        store: { name: 'Test Collective', ...UNSET_STORE_INFO, updated_at: expect.stringMatching(ISO) },
      });
    });

    it('the list: every dispensary with its item counts and whether it is published, never a token', async () => {
      const response = await admin('GET', '/dispensaries');
      expect(response.statusCode).toBe(200);
      const list = response.json();
      expect(list[0]).toEqual({
        id: runtime.seed.dispensaryId,
        name: 'Test Collective',
        items: 4,
        active_items: 3,
        ...SEEDED_UNPUBLISHED,
      });
      expect(list.map((entry: { name: string }) => entry.name)).toContain('Green Leaf');
      expect(response.body).not.toContain(runtime.seed.token);
    });
  });

  describe('update store information', () => {
    it('sets the fields given, leaves the rest, and integrators see it on the next request', async () => {
      const id = runtime.seed.dispensaryId;
      const before = (await formAStore(runtime.seed.token)).json();
      await tick();
      const response = await admin('PATCH', `/dispensaries/${id}`, {
        address: '2 Harbor Way',
        email: 'shop@example.com',
        website: 'https://shop.example.com',
        license_number: 'LIC-42',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().store).toMatchObject({
        address: '2 Harbor Way',
        email: 'shop@example.com',
        website: 'https://shop.example.com',
        license_number: 'LIC-42',
        city: null,
        currency: 'USD',
      });
      const after = (await formAStore(runtime.seed.token)).json();
      expect(after).toEqual(response.json().store);
      expect(after.updated_at > before.updated_at).toBe(true);
    });

    it('null clears a field; a rename renames the dispensary', async () => {
      const id = runtime.seed.dispensaryId;
      const response = await admin('PATCH', `/dispensaries/${id}`, {
        email: null,
        name: 'Test Collective II',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        name: 'Test Collective II',
        store: { email: null, address: '2 Harbor Way' },
      });
      const list = (await admin('GET', '/dispensaries')).json();
      expect(list[0].name).toBe('Test Collective II');
    });

    it('text is trimmed', async () => {
      const response = await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
        city: '  Tacoma  ',
      });
      expect(response.json().store.city).toBe('Tacoma');
    });

    it('an IANA alias (US/Pacific) is a time zone', async () => {
      const response = await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
        timezone: 'US/Pacific',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().store.timezone).toBe('US/Pacific');
    });
  });

  describe('menu_types: the menus a store sells from', () => {
    it('absent until set; set, it is in the store information of the sync API and the forms; null takes it out', async () => {
      const id = runtime.seed.dispensaryId;
      const path = `/dispensaries/${id}`;
      const unset = (await formAStore(runtime.seed.token)).body;
      expect(JSON.parse(unset)).not.toHaveProperty('menu_types');
      // Given in any order, kept as rec then med.
      const both = await admin('PATCH', path, { menu_types: ['med', 'rec'] });
      expect(both.statusCode, both.body).toBe(200);
      expect(both.json().store.menu_types).toEqual(['rec', 'med']);
      expect((await formAStore(runtime.seed.token)).json().menu_types).toEqual(['rec', 'med']);
      expect((await admin('GET', path)).json().store.menu_types).toEqual(['rec', 'med']);
      for (const wrong of [[], ['rec', 'rec'], ['adult'], 'rec']) {
        const refused = await admin('PATCH', path, { menu_types: wrong });
        expect(refused.statusCode, JSON.stringify(wrong)).toBe(400);
        expect(refused.body).toContain('menu_types');
      }
      const cleared = await admin('PATCH', path, { menu_types: null });
      expect(cleared.json().store).not.toHaveProperty('menu_types');
      const again = JSON.parse((await formAStore(runtime.seed.token)).body);
      expect({ ...again, updated_at: null }).toEqual({ ...JSON.parse(unset), updated_at: null });
    });
  });

  describe('rotate token', () => {
    it('with grace_seconds 0: the old token gets 403 on /menu at once, the new one 200', async () => {
      const created = (await admin('POST', '/dispensaries', { name: 'Rotating' })).json();
      expect((await formBMenu(created.token)).statusCode).toBe(200);
      const response = await admin('POST', `/dispensaries/${created.id}/rotate-token`, { grace_seconds: 0 });
      expect(response.statusCode, response.body).toBe(200);
      const rotated = response.json();
      expect(rotated).toEqual({ id: created.id, token: expect.any(String) });
      expect(rotated.token).not.toBe(created.token);
      expect((await formBMenu(created.token)).statusCode).toBe(403);
      expect((await formAStore(created.token)).statusCode).toBe(403);
      expect((await formBMenu(rotated.token)).statusCode).toBe(200);
    });

    it('the new token is never shown again', async () => {
      const response = await admin('POST', `/dispensaries/${runtime.seed.dispensaryId}/rotate-token`, {
        grace_seconds: 0,
      });
      const { token } = response.json();
      expect((await admin('GET', `/dispensaries/${runtime.seed.dispensaryId}`)).body).not.toContain(token);
      runtime.seed.token = token;
    });
  });

  describe('delete', () => {
    it('204 without a body; then 404, and its token gets 403', async () => {
      const created = (await admin('POST', '/dispensaries', { name: 'Closing Down' })).json();
      await admin('PUT', `/dispensaries/${created.id}/menu`, SAMPLE_MENU);
      expect((await formBMenu(created.token)).json().length).toBe(3);
      const response = await admin('DELETE', `/dispensaries/${created.id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await admin('GET', `/dispensaries/${created.id}`)).statusCode).toBe(404);
      expect((await admin('GET', `/dispensaries/${created.id}/menu`)).statusCode).toBe(404);
      expect((await formBMenu(created.token)).statusCode).toBe(403);
      const list = (await admin('GET', '/dispensaries')).json();
      expect(list.map((entry: { id: number }) => entry.id)).not.toContain(created.id);
    });
  });

  describe('the audit log', () => {
    it('names the key and the dispensary of every write, with counts and field names only', async () => {
      const entries = (await auditLog(runtime)).filter((entry) => entry.actor === `key:${keyName}`);
      const actions = new Set(entries.map((entry) => entry.action));
      for (const action of [
        'dispensary.create',
        'dispensary.update',
        'dispensary.rotate_token',
        'dispensary.remove',
        'menu.replace',
      ]) {
        expect(actions).toContain(action);
      }
      const update = entries.find(
        (entry) => entry.action === 'dispensary.update' && entry.dispensaryId === runtime.seed.dispensaryId,
      );
      expect(update?.detail.fields).toEqual(expect.arrayContaining(['address', 'email', 'website']));
      // Which fields changed, not what they now say.
      expect(JSON.stringify(update?.detail)).not.toContain('2 Harbor Way');
    });

    it('reads are not written to it', async () => {
      const count = (await auditLog(runtime)).length;
      await admin('GET', '/dispensaries');
      await admin('GET', `/dispensaries/${runtime.seed.dispensaryId}`);
      expect((await auditLog(runtime)).length).toBe(count);
    });
  });
});
