import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, syncTestRuntime } from '../../helpers/admin.js';
import type { TestRuntime } from '../../helpers/runtime.js';

/** POST /admin/v1/dispensaries/:id/menu/import: a menu file checked (dry run) or applied whole. */
const HEADER = 'name,brand,product_type,unit,amount,price,stock';
const GOOD = `${HEADER}\nAlpha,Acme,Flower,gram,1,10,5\nBeta,Acme,Edible,unit,1,4.5,\n`;
const BAD = `${HEADER}\nAlpha,Acme,Flower,gram,1,10,5\nBeta,Acme,Edible,unit,1,not-a-price,\n`;

describe('menu file import over the sync API', () => {
  let runtime: TestRuntime;
  let url: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    const { key } = await adminKey(runtime);
    auth = { authorization: `Bearer ${key}` };
    url = `/admin/v1/dispensaries/${runtime.seed.dispensaryId}/menu`;
  });
  afterAll(() => runtime?.close());

  const post = (body: string, query: string, type = 'text/csv') =>
    runtime.app.inject({
      method: 'POST',
      url: `${url}/import?${query}`,
      headers: { ...auth, 'content-type': type },
      payload: body,
    });

  it('previews a file with a bad row: counts of what passed, each rejected row with its line; nothing written', async () => {
    const before = (await runtime.app.inject({ url, headers: auth })).json();
    const preview = await post(BAD, 'format=csv&dry_run=true');
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toMatchObject({ dry_run: true, applied: false, items: 1, price_entries: 1 });
    const rejected = preview.json().rejected as { line: number; field: string }[];
    expect(rejected).toContainEqual(expect.objectContaining({ line: 3, field: 'line 3, price' }));
    expect(rejected.every((problem) => problem.line === 3)).toBe(true);
    const apply = await post(BAD, 'format=csv');
    expect(apply.statusCode).toBe(400);
    expect((await runtime.app.inject({ url, headers: auth })).json()).toEqual(before);
  });

  it('applies a good file as one replace, and exports it back as CSV and JSON', async () => {
    const preview = await post(GOOD, 'format=csv&dry_run=true');
    expect(preview.json()).toMatchObject({ items: 2, rejected: [] });
    const apply = await post(GOOD, 'format=csv');
    expect(apply.statusCode).toBe(200);
    expect(apply.json()).toMatchObject({ applied: true, items: 2, active_items: 2, price_entries: 2 });
    const names = (await runtime.app.inject({ url, headers: auth }))
      .json()
      .map((item: { name: string }) => item.name);
    expect(names).toEqual(['Alpha', 'Beta']);
    const csv = await runtime.app.inject({ url: `${url}/export?format=csv`, headers: auth });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('Alpha');
    const json = await runtime.app.inject({ url: `${url}/export?format=json`, headers: auth });
    expect(JSON.parse(json.body)).toHaveLength(2);
    // JSON files too, sent as JSON or as text.
    const asJson = await post(json.body, 'format=json&dry_run=true', 'application/json');
    expect(asJson.json()).toMatchObject({ items: 2, rejected: [] });
    const badJson = await post('[{"name":"x"}]', 'format=json&dry_run=true', 'text/plain');
    expect(badJson.json().rejected[0]).toMatchObject({ line: 1 });
  });
});
