import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../../helpers/runtime.js';

describe('POST /menu (Form A): happy paths', () => {
  let runtime: TestRuntime;
  let body: Record<string, unknown>;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    body = {
      username: runtime.seed.username,
      password: runtime.seed.password,
      collective_token: runtime.seed.token,
    };
  });
  afterAll(() => runtime.close());

  it('returns the active items, ordered by id, with exactly the Form A fields', async () => {
    const response = await runtime.app.inject({ method: 'POST', url: '/menu', payload: body });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-request-id']).toBeTruthy();
    const items = response.json();
    expect(items.map((item: { id: number }) => item.id)).toEqual([1, 3, 7]);
    expect(items[1]).toEqual({
      id: 3,
      name: 'Blue Dream',
      brand_name: 'Emerald Farms',
      product_type: 'Flower',
      product_subtype: 'Hybrid',
      description: 'Berry aroma.',
      product_prices: [
        { unit: 'gram', amount: 1, price: 12 },
        { unit: 'ounce', amount: 0.125, price: 38.5 },
      ],
      active: true,
    });
  });

  it('passes a type from Form B’s list through unchanged and fills unknown text with ""', async () => {
    const response = await runtime.app.inject({ method: 'POST', url: '/menu', payload: body });
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
      payload: { ...body, active: false },
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
    const omitted = await runtime.app.inject({ method: 'POST', url: '/menu', payload: body });
    const explicit = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      payload: { ...body, active: true },
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
      payload: JSON.stringify(body),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(3);
  });

  it('accepts a real urlencoded form with the same field names, active=false included', async () => {
    const form = new URLSearchParams({ ...(body as Record<string, string>), active: 'false' }).toString();
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(4);
  });

  it('prices are numbers with at most two decimals', async () => {
    const response = await runtime.app.inject({ method: 'POST', url: '/menu', payload: body });
    expect(response.body).toContain('"price":22.99');
  });
});
