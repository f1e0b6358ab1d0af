import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { secretDigest } from '../../src/auth/secrets.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

describe('a token that matches no dispensary', () => {
  let runtime: TestRuntime;
  beforeEach(async () => {
    runtime = await testRuntime();
  });
  afterEach(async () => {
    await runtime.close();
  });

  const read = (token: string) =>
    runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: { store: token, username: runtime.seed.username, password: runtime.seed.password },
    });

  it('is refused from memory after the first lookup, until a dispensary change', async () => {
    const lookups = vi.spyOn(runtime.services.store.dispensaries, 'findByTokenDigest');
    expect((await read('later-token')).statusCode).toBe(403);
    expect((await read('later-token')).statusCode).toBe(403);
    expect((await read('later-token')).statusCode).toBe(403);
    expect(lookups).toHaveBeenCalledTimes(1);
    // A dispensary that holds that token now: the change notice makes the token known at once.
    await runtime.services.store.dispensaries.create('Later', secretDigest('later-token'));
    await runtime.feed.poll();
    expect((await read('later-token')).statusCode).toBe(200);
  });
});
