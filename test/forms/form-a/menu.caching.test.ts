import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminKey, generateMenu, syncTestRuntime } from '../../helpers/admin.js';
import { expectInvalidToken, formABody } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

/** A menu well over the compression threshold, with some inactive items. */
const MENU = generateMenu(25, 'cache-a').map((item, index) => ({ ...item, active: index % 4 !== 0 }));
const ACTIVE = MENU.filter((item) => item.active).map((item) => item.id);

function decoded(response: LightMyRequestResponse): string {
  const raw = response.rawPayload;
  const encoding = response.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(raw).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(raw).toString('utf8');
  expect(encoding).toBeUndefined();
  return raw.toString('utf8');
}

describe('POST /menu (Form A): snapshots and compression', () => {
  let runtime: TestRuntime;
  const post = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    runtime.app.inject({
      method: 'POST',
      url: '/menu',
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ ...formABody(runtime.seed), ...body }),
    });
  const ids = (response: LightMyRequestResponse) =>
    (JSON.parse(decoded(response)) as { id: number }[]).map((item) => item.id);

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: MENU });
  });
  afterAll(() => runtime.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('has no ETag (a POST), is never stored by caches, and varies by Accept-Encoding', async () => {
    const response = await post();
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('ignores If-None-Match: a POST always gets the answer', async () => {
    const response = await post({}, { 'if-none-match': '*' });
    expect(response.statusCode).toBe(200);
    expect(ids(response)).toEqual(ACTIVE);
  });

  it.each([
    [undefined, undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['*;q=0', undefined],
    ['zstd', undefined],
  ])('Accept-Encoding %j is answered with Content-Encoding %j, the same JSON', async (accept, expected) => {
    const identity = await post({}, { 'accept-encoding': 'identity' });
    const response = await post({}, accept === undefined ? {} : { 'accept-encoding': accept });
    expect(response.headers['content-encoding']).toBe(expected);
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
    expect(decoded(response)).toBe(identity.rawPayload.toString('utf8'));
  });

  it('keeps one snapshot per active filter: active only, and every item', async () => {
    expect(ids(await post({}, { 'accept-encoding': 'gzip' }))).toEqual(ACTIVE);
    expect(ids(await post({ active: true }, { 'accept-encoding': 'gzip' }))).toEqual(ACTIVE);
    const all = await post({ active: false }, { 'accept-encoding': 'br' });
    expect(ids(all)).toEqual(MENU.map((item) => item.id));
    const flags = (JSON.parse(decoded(all)) as { active: boolean }[]).map((item) => item.active);
    expect(flags).toEqual(MENU.map((item) => item.active));
    expect(runtime.snapshots.has('a:menu:active', runtime.seed.dispensaryId, 'gzip')).toBe(true);
    expect(runtime.snapshots.has('a:menu:all', runtime.seed.dispensaryId, 'br')).toBe(true);
  });

  it('a urlencoded form is answered from the same snapshot', async () => {
    const form = new URLSearchParams({
      username: runtime.seed.username,
      password: runtime.seed.password,
      collective_token: runtime.seed.token,
      active: 'false',
    });
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/menu',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-encoding': 'gzip' },
      payload: form.toString(),
    });
    expect(response.statusCode).toBe(200);
    expect(ids(response)).toEqual(MENU.map((item) => item.id));
  });

  it('many concurrent reads after a change load the menu once', async () => {
    const { menus, store } = runtime.services;
    await menus.replace(runtime.seed.dispensaryId, menus.validate(MENU));
    const reads = vi.spyOn(store.menus, 'read');
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, index) => post({}, { 'accept-encoding': index % 2 ? 'gzip' : 'br' })),
    );
    expect(reads).toHaveBeenCalledTimes(1);
    for (const response of responses) expect(ids(response)).toEqual(ACTIVE);
  });

  it('every kind of change reaches the next read, in both filters', async () => {
    const { menus, dispensaries } = runtime.services;
    const id = runtime.seed.dispensaryId;
    const read = async (active: boolean) => ids(await post({ active }, { 'accept-encoding': 'gzip' }));
    await read(true);
    await read(false);

    await menus.setActive(id, ACTIVE[0]!, false);
    expect(await read(true)).toEqual(ACTIVE.slice(1));
    expect(await read(false)).toEqual(MENU.map((item) => item.id));

    await menus.replace(id, menus.validate(generateMenu(4, 'next', 100)));
    expect(await read(true)).toEqual([100, 101, 102, 103]);

    const { call } = await adminKey(runtime);
    const before = await post({}, { 'accept-encoding': 'identity' });
    const reads = vi.spyOn(runtime.services.store.menus, 'read');
    expect(await post({}, { 'accept-encoding': 'identity' })).toMatchObject({ statusCode: 200 });
    expect(reads).not.toHaveBeenCalled(); // kept: a read that changed nothing rebuilds nothing
    expect(
      (
        await call('PATCH', `/dispensaries/${id}/inventory`, [
          { item_id: 100, unit: 'gram', amount: 1, stock: 77 },
        ])
      ).statusCode,
    ).toBe(200);
    expect(runtime.snapshots.has('a:menu:active', id, 'identity')).toBe(false);
    const after = await post({}, { 'accept-encoding': 'identity' });
    // Form A has no stock field: the bytes stay the same, but they were rebuilt from the new menu.
    expect(reads).toHaveBeenCalledTimes(1);
    expect(reads).toHaveBeenCalledWith(id);
    expect(after.rawPayload.toString()).toBe(before.rawPayload.toString());
    expect(runtime.snapshots.has('a:menu:active', id, 'identity')).toBe(true);

    const rotated = await dispensaries.rotateToken(id, undefined, 0);
    expectInvalidToken(await post());
    expect((await post({ collective_token: rotated.token })).statusCode).toBe(200);

    await dispensaries.remove(id);
    expectInvalidToken(await post({ collective_token: rotated.token }));
  });
});
