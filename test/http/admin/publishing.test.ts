import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, syncTestRuntime } from '../../helpers/admin.js';
import { expectError } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

describe('sync API: publishing a dispensary', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    admin = (await adminKey(runtime, 'all')).call;
  });
  afterAll(() => runtime.close());

  const create = async (name: string): Promise<number> =>
    (await admin('POST', '/dispensaries', { name })).json().id;

  it('published: true without a slug suggests one from the name; show_stock stays false', async () => {
    const id = await create('Green Leaf Café & Co.');
    const response = await admin('PATCH', `/dispensaries/${id}`, { published: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ published: true, slug: 'green-leaf-cafe-co', show_stock: false });
    // The same name again gets the next free slug.
    const twin = await create('Green Leaf Café & Co.');
    const second = await admin('PATCH', `/dispensaries/${twin}`, { published: true });
    expect(second.json()).toMatchObject({ published: true, slug: 'green-leaf-cafe-co-2' });
  });

  it('a chosen slug, show_stock and store fields in one body; unpublish keeps the slug', async () => {
    const id = await create('Harbor');
    const response = await admin('PATCH', `/dispensaries/${id}`, {
      published: true,
      slug: 'harbor-shop',
      show_stock: true,
      city: 'Seattle',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      published: true,
      slug: 'harbor-shop',
      show_stock: true,
      store: { city: 'Seattle' },
    });
    const off = await admin('PATCH', `/dispensaries/${id}`, { published: false });
    expect(off.json()).toMatchObject({ published: false, slug: 'harbor-shop', show_stock: true });
    expect((await admin('GET', `/dispensaries/${id}`)).json()).toMatchObject({ published: false });
    // The list says it too (the console's Dispensaries page shows it).
    const listed = (await admin('GET', '/dispensaries'))
      .json()
      .find((entry: { id: number }) => entry.id === id);
    expect(listed).toMatchObject({ published: false, slug: 'harbor-shop', show_stock: true });
  });

  it('a slug another dispensary has is 409 with what to do, and nothing is written', async () => {
    const first = await create('First');
    const second = await create('Second');
    await admin('PATCH', `/dispensaries/${first}`, { published: true, slug: 'same-slug' });
    const response = await admin('PATCH', `/dispensaries/${second}`, {
      published: true,
      slug: 'same-slug',
      city: 'Oakland',
    });
    const error = expectError(response, 409, 'conflict');
    expect(error.message).toContain('"same-slug" is used by another dispensary');
    expect(error.message).toContain('Choose another');
    // Also named as the slug field's problem, so that a form shows it at that field.
    expect(error.problems).toEqual([
      { field: 'slug', message: expect.stringContaining('used by another dispensary') },
    ]);
    expect((await admin('GET', `/dispensaries/${second}`)).json()).toMatchObject({
      published: false,
      slug: null,
      store: { city: null },
    });
  });

  it.each([
    [{ slug: 'ab' }, 'slug'],
    [{ slug: 'Has Capitals' }, 'slug'],
    [{ slug: 'x'.repeat(65) }, 'slug'],
    [{ slug: 7 }, 'slug'],
    [{ published: 'yes' }, 'published'],
    [{ show_stock: 1 }, 'show_stock'],
  ])('%j is 400 naming %s, and nothing is written', async (body, field) => {
    const id = await create('Checked');
    const response = await admin('PATCH', `/dispensaries/${id}`, { ...body, city: 'Oakland' });
    const error = expectError(response, 400, 'invalid_request');
    expect(error.problems?.map((problem) => problem.field)).toEqual([field]);
    expect((await admin('GET', `/dispensaries/${id}`)).json()).toMatchObject({
      published: false,
      store: { city: null },
    });
  });

  it('a bad store field with publishing fields is 400 and publishes nothing', async () => {
    const id = await create('Bad Store');
    const response = await admin('PATCH', `/dispensaries/${id}`, { published: true, timezone: 'Mars/Base' });
    expectError(response, 400, 'invalid_request');
    expect((await admin('GET', `/dispensaries/${id}`)).json()).toMatchObject({
      published: false,
      slug: null,
    });
  });

  it('an unknown dispensary is 404', async () => {
    expectError(await admin('PATCH', '/dispensaries/99999', { published: true }), 404, 'not_found');
  });

  it('a key scoped to a dispensary publishes its own, and no other', async () => {
    const own = await create('Scoped Shop');
    const other = await create('Other Shop');
    const scoped = (await adminKey(runtime, `dispensary:${own}`)).call;
    expect((await scoped('PATCH', `/dispensaries/${own}`, { published: true })).statusCode).toBe(200);
    expectError(await scoped('PATCH', `/dispensaries/${other}`, { published: true }), 403, 'forbidden');
  });
});
