import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** Token rotation grace periods, credential expiry, last use and per-credential dispensary allowlists. */
describe('access limits', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
  });
  afterAll(() => runtime.close());

  const menuWith = (username: string, password: string, token: string) =>
    runtime.app.inject({ method: 'GET', url: '/menu', headers: { store: token, username, password } });

  it('a rotated token keeps working for its grace period, then stops', async () => {
    const { dispensaries } = runtime.services;
    const created = await dispensaries.create('Grace Collective');
    const { username, password } = runtime.seed;
    expect((await menuWith(username, password, created.token)).statusCode).toBe(200);

    const rotated = await dispensaries.rotateToken(created.id, undefined, 1);
    expect((await menuWith(username, password, rotated.token)).statusCode).toBe(200);
    // The old token is remembered in the cache, and the second read's whole answer with it: the
    // grace end must still apply to both.
    expect((await menuWith(username, password, created.token)).statusCode).toBe(200);
    expect((await menuWith(username, password, created.token)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const expired = await menuWith(username, password, created.token);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().error.code).toBe('invalid_token');
    expect((await menuWith(username, password, rotated.token)).statusCode).toBe(200);
  });

  it('a second rotation ends the first token at once, whatever its grace', async () => {
    const { dispensaries } = runtime.services;
    const created = await dispensaries.create('Twice Collective');
    const first = await dispensaries.rotateToken(created.id);
    await dispensaries.rotateToken(created.id);
    const { username, password } = runtime.seed;
    expect((await menuWith(username, password, created.token)).statusCode).toBe(403);
    expect((await menuWith(username, password, first.token)).statusCode).toBe(200);
  });

  it('a token lookup that began before a rotation is not remembered after it', async () => {
    const { dispensaries, store } = runtime.services;
    const created = await dispensaries.create('Race Collective');
    const { username, password } = runtime.seed;
    const find = store.dispensaries.findByTokenDigest.bind(store.dispensaries);
    // The rotation, and the change notice it sends, land while the first request's lookup is under way.
    const lookup = vi
      .spyOn(store.dispensaries, 'findByTokenDigest')
      .mockImplementationOnce(async (digest) => {
        const found = await find(digest);
        await dispensaries.rotateToken(created.id, undefined, 0);
        return found;
      });
    try {
      expect((await menuWith(username, password, created.token)).statusCode).toBe(200);
    } finally {
      lookup.mockRestore();
    }
    expect((await menuWith(username, password, created.token)).statusCode).toBe(403);
  });

  it('the default grace is 24 hours', async () => {
    const created = await runtime.services.dispensaries.create('Default Grace');
    await runtime.services.dispensaries.rotateToken(created.id);
    const audit = await runtime.services.audit.list({ dispensaryId: created.id });
    const rotation = audit.find((entry) => entry.action === 'dispensary.rotate_token');
    const until = Date.parse(String(rotation?.detail.previous_valid_until));
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
  });

  it('rejects a grace period that is not a whole number of seconds from 0 to 30 days', async () => {
    for (const grace of [-1, 1.5, 31 * 24 * 3600, Number.NaN]) {
      await expect(
        runtime.services.dispensaries.rotateToken(runtime.seed.dispensaryId, undefined, grace),
      ).rejects.toThrow(/grace period/);
    }
  });

  it('a credential stops working at its expiry, even when remembered', async () => {
    const expiresAt = new Date(Date.now() + 1_000).toISOString();
    const issued = await runtime.services.credentials.issue('expiring', undefined, { expiresAt });
    // The second read is answered from memory whole (the pair and the token at once).
    expect((await menuWith(issued.username, issued.password, runtime.seed.token)).statusCode).toBe(200);
    expect((await menuWith(issued.username, issued.password, runtime.seed.token)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const expired = await menuWith(issued.username, issued.password, runtime.seed.token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('invalid_credentials');
  });

  it('a revoked credential is refused at once, though its reads were answered from memory', async () => {
    const issued = await runtime.services.credentials.issue('revoked-while-reading');
    for (let read = 0; read < 3; read++) {
      expect((await menuWith(issued.username, issued.password, runtime.seed.token)).statusCode).toBe(200);
    }
    await runtime.services.credentials.revoke(issued.username);
    await runtime.feed.poll();
    const refused = await menuWith(issued.username, issued.password, runtime.seed.token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('invalid_credentials');
  });

  it('refuses an expiry in the past', async () => {
    await expect(
      runtime.services.credentials.issue('late', undefined, { expiresAt: '2001-01-01T00:00:00Z' }),
    ).rejects.toThrow(/future time/);
  });

  it('a credential limited to named dispensaries gets 403 for any other', async () => {
    const other = await runtime.services.dispensaries.create('Other Collective');
    const limited = await runtime.services.credentials.issue('limited', undefined, {
      dispensaryIds: [runtime.seed.dispensaryId],
    });
    expect((await menuWith(limited.username, limited.password, runtime.seed.token)).statusCode).toBe(200);
    const refused = await menuWith(limited.username, limited.password, other.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('forbidden');
    // Form A and the other endpoints apply the same rule.
    const formA = await runtime.app.inject({
      method: 'POST',
      url: '/inventory',
      payload: { username: limited.username, password: limited.password, collective_token: other.token },
    });
    expect(formA.statusCode).toBe(403);
  });

  it('refuses an allowlist naming a dispensary that does not exist', async () => {
    await expect(
      runtime.services.credentials.issue('ghostly', undefined, { dispensaryIds: [999_999] }),
    ).rejects.toThrow(/no dispensary 999999/);
  });

  it('credential list shows last use, expiry and allowlist', async () => {
    const issued = await runtime.services.credentials.issue('tracked', undefined, {
      dispensaryIds: [runtime.seed.dispensaryId],
      expiresAt: '2099-01-01T00:00:00Z',
    });
    let listed = (await runtime.services.credentials.list()).find((c) => c.username === 'tracked');
    expect(listed).toMatchObject({
      lastUsedAt: null,
      expiresAt: '2099-01-01T00:00:00.000Z',
      dispensaryIds: [1],
    });
    const before = Date.now();
    expect((await menuWith(issued.username, issued.password, runtime.seed.token)).statusCode).toBe(200);
    // Last use is written off the request path: wait for it.
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      listed = (await runtime.services.credentials.list()).find((c) => c.username === 'tracked');
      if (listed?.lastUsedAt) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Date.parse(String(listed?.lastUsedAt))).toBeGreaterThanOrEqual(before - 1);
  });
});
