import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formBHeaders, postForm } from '../helpers/http.js';
import { BLUE_DREAM_FORM_A, SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { FORM_DRIVERS } from './driver.js';

const ALL_FIELDS = [
  'id',
  'name',
  'description',
  'image',
  'type',
  'subtype',
  'brand',
  'brand_name',
  'cbd',
  'cbn',
  'thc',
  'total_thc',
  'total_cbd',
  'flavors',
  'effects',
  'conditions',
  'variants',
  'prices',
];

const BLUE_DREAM_PRICES = [
  { unit: 'gram', amount: 1, price: 12, stock: 10 },
  { unit: 'ounce', amount: 0.125, price: 38.5, stock: 0 },
];

type Item = Record<string, unknown> & { id: number };

describe.each(FORM_DRIVERS)('$id: /menu happy paths', (form) => {
  let runtime: TestRuntime;
  let good: Record<string, string>;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    good = form.credentials(runtime.seed);
  });
  afterAll(() => runtime.close());

  describe(`${form.title('/menu')}`, () => {
    it('returns only the active items, ordered by id, as JSON with a request id', async () => {
      const response = await form.send(runtime, '/menu', { credentials: good });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-request-id']).toMatch(/^\S+$/);
      const items = response.json() as Item[];
      expect(items.map((item) => item.id)).toEqual([1, 3, 7]);
      if (form.id === 'a') {
        // With exactly the Form A fields (Form B's are checked below).
        expect(items[1]).toEqual(BLUE_DREAM_FORM_A);
      }
    });

    if (form.id === 'a') {
      it('passes a type from Form B’s list through unchanged and fills unknown text with ""', async () => {
        const response = await runtime.app.inject({ method: 'POST', url: '/menu', payload: good });
        const vape = response.json().find((item: { id: number }) => item.id === 7);
        expect(vape).toMatchObject({
          product_type: 'Vape',
          brand_name: '',
          product_subtype: '',
          description: '',
        });
      });

      it('with active false returns every item, each with its flag', async () => {
        const response = await runtime.app.inject({
          method: 'POST',
          url: '/menu',
          payload: { ...good, active: false },
        });
        const items = response.json();
        expect(items.map((item: { id: number; active: boolean }) => [item.id, item.active])).toEqual([
          [1, true],
          [2, false],
          [3, true],
          [7, true],
        ]);
        expect(items[1].product_prices).toEqual([]);
      });

      it('with active true is the same as omitting it', async () => {
        const omitted = await runtime.app.inject({ method: 'POST', url: '/menu', payload: good });
        const explicit = await runtime.app.inject({
          method: 'POST',
          url: '/menu',
          payload: { ...good, active: true },
        });
        expect(explicit.json()).toEqual(omitted.json());
      });

      it.each([
        ['no content type', undefined],
        ['text/plain', 'text/plain'],
        ['application/x-www-form-urlencoded (curl -d)', 'application/x-www-form-urlencoded'],
      ])('accepts a JSON object sent with %s', async (_label, contentType) => {
        const response = await runtime.app.inject({
          method: 'POST',
          url: '/menu',
          headers: contentType ? { 'content-type': contentType } : {},
          payload: JSON.stringify(good),
        });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toHaveLength(3);
      });

      it('accepts a real urlencoded form with the same field names, active=false included', async () => {
        const response = await postForm(runtime.app, '/menu', {
          ...(good as Record<string, string>),
          active: 'false',
        });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toHaveLength(4);
      });

      it('prices are numbers with at most two decimals', async () => {
        const response = await runtime.app.inject({ method: 'POST', url: '/menu', payload: good });
        expect(response.body).toContain('"price":22.99');
      });
    }

    if (form.id === 'b') {
      it('sends exactly the Form B fields, in the order of the spec, on every item', async () => {
        const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        for (const item of response.json() as Item[]) expect(Object.keys(item)).toEqual(ALL_FIELDS);
      });

      it('sends a fully described item with every value in place', async () => {
        const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        const blueDream = (response.json() as Item[]).find((item) => item.id === 3);
        expect(blueDream).toStrictEqual({
          id: 3,
          name: 'Blue Dream',
          description: 'Berry aroma.',
          image: 'https://img.example/blue.jpg',
          type: 'Flower',
          subtype: 'Hybrid',
          brand: 'Emerald Farms',
          brand_name: 'Emerald Farms',
          cbd: 0.1,
          cbn: null,
          thc: 21.5,
          total_thc: null,
          total_cbd: null,
          flavors: ['Berry'],
          effects: ['Happy'],
          conditions: ['Stress'],
          variants: BLUE_DREAM_PRICES,
          prices: BLUE_DREAM_PRICES,
        });
      });

      it('uses null for unknown potency, image and stock, "" for unknown text and [] for empty lists', async () => {
        const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        const items = response.json() as Item[];
        expect(items[0]).toStrictEqual({
          id: 1,
          name: 'Fudge Brownie',
          description: '',
          image: null,
          type: 'Edible',
          subtype: 'Brownies',
          brand: 'Baked Bros',
          brand_name: 'Baked Bros',
          cbd: null,
          cbn: null,
          thc: null,
          total_thc: 100,
          total_cbd: null,
          flavors: [],
          effects: [],
          conditions: [],
          variants: [{ unit: 'unit', amount: 1, price: 22.99, stock: null }],
          prices: [{ unit: 'unit', amount: 1, price: 22.99, stock: null }],
        });
        expect(items[2]).toMatchObject({ id: 7, type: 'Vape', subtype: '', brand: '', brand_name: '' });
      });

      it('brand equals brand_name and variants deep-equals prices on every item', async () => {
        const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        const items = response.json() as Item[];
        expect(items).toHaveLength(3);
        for (const item of items) {
          expect(item.brand).toBe(item.brand_name);
          expect(item.variants).toStrictEqual(item.prices);
          for (const entry of item.prices as object[])
            expect(Object.keys(entry)).toEqual(['unit', 'amount', 'price', 'stock']);
        }
      });

      it('sends prices as JSON numbers with at most two decimals', async () => {
        const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        expect(response.body).toContain('"price":22.99,');
        expect(response.body).toContain('"price":38.5,');
        expect(response.body).toContain('"price":12,');
      });

      it('ignores the header names’ case, as HTTP requires', async () => {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/menu',
          headers: { Store: good.store!, USERNAME: good.username!, PassWord: good.password! },
        });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toHaveLength(3);
      });

      it('refuses ?active=false (and any unknown query parameter), saying how to list inactive items', async () => {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/menu?active=false&x=1',
          headers: good,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toMatchObject({
          code: 'invalid_request',
          message:
            'GET /menu does not take the query parameter "active" (it takes none). Form B lists active items only; POST /menu with "active": false in the JSON body (Form A) lists inactive items too.',
          problems: [{ field: 'active', message: 'query parameter is not known here' }],
        });
      });

      it('ignores a body sent with GET: Form B takes none', async () => {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/menu',
          headers: { ...good, 'content-type': 'application/json' },
          payload: '{"not": "json',
        });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toHaveLength(3);
      });

      it('answers HEAD with 200, the same headers and no body', async () => {
        const get = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        const head = await runtime.app.inject({ method: 'HEAD', url: '/menu', headers: good });
        expect(head.statusCode).toBe(200);
        expect(head.body).toBe('');
        expect(head.rawPayload).toHaveLength(0);
        expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(head.headers['content-length']).toBe(get.headers['content-length']);
        expect(head.headers['x-request-id']).toBeTruthy();
        expect(head.headers['x-request-id']).not.toBe(get.headers['x-request-id']);
      });

      it('answers the same menu again from memory, unchanged', async () => {
        const first = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        const second = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        expect(second.statusCode).toBe(200);
        expect(second.body).toBe(first.body);
      });

      it('shows a new menu on the very next request after a replace', async () => {
        const { menus } = runtime.services;
        await menus.replace(
          runtime.seed.dispensaryId,
          menus.validate([
            ...SAMPLE_MENU,
            { id: 9, name: 'Calm Tincture', product_type: 'Tincture', cbd: 20, prices: [] },
          ]),
        );
        const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers: good });
        const items = response.json() as Item[];
        expect(items.map((item) => item.id)).toEqual([1, 3, 7, 9]);
        expect(items[3]).toMatchObject({ name: 'Calm Tincture', cbd: 20, variants: [], prices: [] });
        await menus.replace(runtime.seed.dispensaryId, menus.validate(SAMPLE_MENU));
      });
    }
  });
});

describe('GET /menu (Form B): an empty menu', () => {
  it('is an empty array', async () => {
    const runtime = await testRuntime();
    try {
      const response = await runtime.app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders(runtime.seed),
      });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('[]');
    } finally {
      await runtime.close();
    }
  });
});

describe.each([
  ['table', ['brand', 'variants'], ['brand_name', 'prices']],
  ['sample', ['brand_name', 'prices'], ['brand', 'variants']],
] as const)('GET /menu (Form B) with formBNames "%s"', (names, present, absent) => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: { formBNames: names } });
  });
  afterAll(() => runtime.close());

  it(`sends only ${present.join(' and ')} of the two spellings`, async () => {
    const response = await runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders(runtime.seed),
    });
    expect(response.statusCode).toBe(200);
    const items = response.json() as Item[];
    expect(items.map((item) => item.id)).toEqual([1, 3, 7]);
    const expectedKeys = ALL_FIELDS.filter((field) => !(absent as readonly string[]).includes(field));
    for (const item of items) {
      expect(Object.keys(item)).toEqual(expectedKeys);
      for (const field of absent) expect(item).not.toHaveProperty(field);
    }
    const blueDream = items.find((item) => item.id === 3)!;
    const [brandField, pricesField] = present;
    expect(blueDream[brandField]).toBe('Emerald Farms');
    expect(blueDream[pricesField]).toStrictEqual(BLUE_DREAM_PRICES);
  });

  it('leaves Form A unchanged', async () => {
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      payload: {
        username: runtime.seed.username,
        password: runtime.seed.password,
        collective_token: runtime.seed.token,
      },
    });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json()[0])).toEqual([
      'id',
      'name',
      'brand_name',
      'product_type',
      'product_subtype',
      'description',
      'product_prices',
      'active',
    ]);
  });
});
