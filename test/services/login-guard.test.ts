import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerConfig } from '../../src/config.js';
import {
  DEFAULT_LOGIN_GUARD,
  type LoginGuard,
  type LoginGuardLimits,
  MemoryLoginGuard,
  RedisLoginGuard,
} from '../../src/services/login-guard/index.js';
import { adminKey } from '../helpers/admin.js';
import {
  expectError,
  expectInvalidCredentials,
  formARequest,
  formBHeaders,
  formBRequest,
} from '../helpers/http.js';
import { testRedis } from '../helpers/redis.js';
import { GENEROUS_LIMITS, type TestRuntime, testRuntime } from '../helpers/runtime.js';

const { prefix: PREFIX, connect: redis } = testRedis();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let run = 0;
const IMPLEMENTATIONS: { name: string; make(limits: LoginGuardLimits): Promise<LoginGuard> }[] = [
  { name: 'memory', make: async (limits) => new MemoryLoginGuard(limits) },
  {
    name: 'redis',
    make: async (limits) => new RedisLoginGuard(await redis(), limits, `${PREFIX}${++run}:`),
  },
];

const LIMITS: LoginGuardLimits = { windowMs: 60_000, perPair: 10, perAddress: 50, perUsername: 200 };

async function fail(guard: LoginGuard, times: number, username: string | undefined, address: string) {
  for (let index = 0; index < times; index += 1) await guard.failed({ username, address });
}

describe.each(IMPLEMENTATIONS)('LoginGuard: $name', (implementation) => {
  let guard: LoginGuard;
  afterEach(async () => {
    await guard?.close();
  });

  it('refuses a username from an address after 10 failures, for the rest of the window', async () => {
    guard = await implementation.make(LIMITS);
    await fail(guard, 9, 'alice', '198.51.100.1');
    expect((await guard.check({ username: 'alice', address: '198.51.100.1' })).allowed).toBe(true);
    await fail(guard, 1, 'alice', '198.51.100.1');
    const verdict = await guard.check({ username: 'alice', address: '198.51.100.1' });
    expect(verdict.allowed).toBe(false);
    expect(verdict.retryAfterSeconds).toBeGreaterThan(55);
    expect(verdict.retryAfterSeconds).toBeLessThanOrEqual(60);
    // The same username from another address, and another username from this one, are still fine.
    expect((await guard.check({ username: 'alice', address: '198.51.100.2' })).allowed).toBe(true);
    expect((await guard.check({ username: 'bob', address: '198.51.100.1' })).allowed).toBe(true);
  });

  it('the window passes, and the attempts are allowed again', async () => {
    guard = await implementation.make({ ...LIMITS, windowMs: 1_000, perPair: 2 });
    await fail(guard, 2, 'alice', '198.51.100.1');
    expect((await guard.check({ username: 'alice', address: '198.51.100.1' })).allowed).toBe(false);
    await sleep(1_100);
    expect((await guard.check({ username: 'alice', address: '198.51.100.1' })).allowed).toBe(true);
  });

  it('refuses an address that failed across 50 usernames, whatever the username', async () => {
    guard = await implementation.make(LIMITS);
    for (let index = 0; index < 49; index += 1) await fail(guard, 1, `user-${index}`, '198.51.100.7');
    expect((await guard.check({ username: 'fresh', address: '198.51.100.7' })).allowed).toBe(true);
    await fail(guard, 1, 'user-49', '198.51.100.7');
    expect((await guard.check({ username: 'fresh', address: '198.51.100.7' })).allowed).toBe(false);
    expect((await guard.check({ address: '198.51.100.7' })).allowed).toBe(false);
    expect((await guard.check({ username: 'fresh', address: '198.51.100.8' })).allowed).toBe(true);
  });

  it('refuses a username failing from 200 addresses, from every address', async () => {
    guard = await implementation.make(LIMITS);
    for (let index = 0; index < 199; index += 1)
      await fail(guard, 1, 'carol', `10.0.${index >> 8}.${index & 255}`);
    expect((await guard.check({ username: 'carol', address: '192.0.2.1' })).allowed).toBe(true);
    await fail(guard, 1, 'carol', '10.1.0.0');
    expect((await guard.check({ username: 'carol', address: '192.0.2.1' })).allowed).toBe(false);
    expect((await guard.check({ username: 'dave', address: '192.0.2.1' })).allowed).toBe(true);
  });

  it('a success clears the failures of that username from that address only', async () => {
    guard = await implementation.make(LIMITS);
    await fail(guard, 9, 'erin', '198.51.100.3');
    expect((await guard.check({ username: 'erin', address: '198.51.100.3' })).pairFailures).toBe(9);
    await guard.succeeded({ username: 'erin', address: '198.51.100.3' });
    const after = await guard.check({ username: 'erin', address: '198.51.100.3' });
    expect(after.pairFailures).toBe(0);
    await fail(guard, 9, 'erin', '198.51.100.3');
    expect((await guard.check({ username: 'erin', address: '198.51.100.3' })).allowed).toBe(true);
  });

  it('counts an IPv6 /64 as one address', async () => {
    guard = await implementation.make({ ...LIMITS, perPair: 2 });
    await fail(guard, 1, 'frank', '2001:db8:0:1::1');
    await fail(guard, 1, 'frank', '2001:db8:0:1:abcd::2');
    expect((await guard.check({ username: 'frank', address: '2001:db8:0:1::99' })).allowed).toBe(false);
    expect((await guard.check({ username: 'frank', address: '2001:db8:0:2::1' })).allowed).toBe(true);
  });

  it('a counter set to 0 is off', async () => {
    guard = await implementation.make({ ...LIMITS, perPair: 0, perAddress: 0, perUsername: 1 });
    await fail(guard, 5, 'gina', '198.51.100.4');
    expect((await guard.check({ username: 'other', address: '198.51.100.4' })).allowed).toBe(true);
    expect((await guard.check({ username: 'gina', address: '198.51.100.9' })).allowed).toBe(false);
  });
});

describe('LoginGuard: defaults', () => {
  it('10 per username and address, 50 per address, 200 per username, in 15 minutes', () => {
    expect(DEFAULT_LOGIN_GUARD).toEqual({
      windowMs: 15 * 60 * 1000,
      perPair: 10,
      perAddress: 50,
      perUsername: 200,
    });
  });
});

describe('LoginGuard in the access check', () => {
  let runtime: TestRuntime;
  const ATTACKER = '198.51.100.66';
  const OWNER = '203.0.113.10';

  const start = (config: Partial<ServerConfig> = {}) =>
    testRuntime({
      config: { ...GENEROUS_LIMITS, loginGuard: { ...DEFAULT_LOGIN_GUARD }, ...config },
    }).then((made) => {
      runtime = made;
    });
  afterEach(async () => {
    await runtime?.close();
  });

  /** A request of /menu with the seed's credentials but this password, from `remoteAddress`. */
  const formA = (password: string, remoteAddress: string) =>
    runtime.app.inject({ ...formARequest({ ...runtime.seed, password }), remoteAddress });
  const formB = (password: string, remoteAddress: string) =>
    runtime.app.inject({ ...formBRequest({ ...runtime.seed, password }), remoteAddress });

  it.each([
    ['Form A', formA],
    ['Form B', formB],
  ])(
    '%s: 10 wrong passwords from one address, then 429 there (even for the right one), before any scrypt work',
    async (_name, send) => {
      await start();
      for (let index = 0; index < 10; index += 1)
        expectInvalidCredentials(await send(`wrong-${index}`, ATTACKER));
      const findCredential = vi.spyOn(runtime.services.store.credentials, 'find');
      const refused = await send('wrong-again', ATTACKER);
      const error = expectError(refused, 429, 'rate_limited');
      expect(error.message).toMatch(/Too many failed logins/);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expectError(await send(runtime.seed.password, ATTACKER), 429, 'rate_limited');
      // Refused before the credential was even looked up, so no scrypt either.
      expect(findCredential).not.toHaveBeenCalled();
      // The owner, elsewhere, is not locked out by the attacker's failures.
      expect((await send(runtime.seed.password, OWNER)).statusCode).toBe(200);
      findCredential.mockRestore();
    },
  );

  it('the window passing lets the address try again', async () => {
    await start({ loginGuard: { windowMs: 2_000, perPair: 2, perAddress: 50, perUsername: 200 } });
    expectInvalidCredentials(await formA('wrong-1', ATTACKER));
    expectInvalidCredentials(await formA('wrong-2', ATTACKER));
    expectError(await formA(runtime.seed.password, ATTACKER), 429, 'rate_limited');
    await sleep(2_100);
    expect((await formA(runtime.seed.password, ATTACKER)).statusCode).toBe(200);
  });

  it('an address failing across many usernames is refused for every username', async () => {
    await start({ loginGuard: { ...DEFAULT_LOGIN_GUARD, perAddress: 5 } });
    for (let index = 0; index < 5; index += 1) {
      const response = await runtime.app.inject({
        method: 'GET',
        url: '/store',
        headers: formBHeaders({ ...runtime.seed, username: `guess-${index}` }),
        remoteAddress: ATTACKER,
      });
      expectInvalidCredentials(response);
    }
    expectError(await formB(runtime.seed.password, ATTACKER), 429, 'rate_limited');
    expect((await formB(runtime.seed.password, OWNER)).statusCode).toBe(200);
  });

  it('a username guessed from many addresses is refused everywhere, past the global limit only', async () => {
    await start({ loginGuard: { ...DEFAULT_LOGIN_GUARD, perUsername: 20 } });
    for (let index = 0; index < 19; index += 1)
      expectInvalidCredentials(await formA('wrong', `10.9.0.${index}`));
    expect((await formA(runtime.seed.password, OWNER)).statusCode).toBe(200);
    expectInvalidCredentials(await formA('wrong', '10.9.1.1'));
    expectError(await formA(runtime.seed.password, OWNER), 429, 'rate_limited');
  });

  it('failed admin keys count per address, for the sync API and the public endpoints', async () => {
    await start({ loginGuard: { ...DEFAULT_LOGIN_GUARD, perAddress: 3 } });
    const good = await adminKey(runtime);
    const fromAttacker = (key: string) =>
      runtime.app.inject({
        method: 'GET',
        url: '/admin/v1/dispensaries',
        headers: { authorization: `Bearer ${key}` },
        remoteAddress: ATTACKER,
      });
    for (let index = 0; index < 3; index += 1) {
      expectError(await fromAttacker(`mak_not-a-real-key-${index}`), 401, 'invalid_credentials');
    }
    expectError(await fromAttacker(good.key), 429, 'rate_limited');
    expectError(await formA(runtime.seed.password, ATTACKER), 429, 'rate_limited');
    // Elsewhere the key works.
    expect((await good.call('GET', '/dispensaries')).statusCode).toBe(200);
  });
});
