import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialVerifier } from '../../src/auth/credential-verifier.js';
import { hashPassword, verifyPassword } from '../../src/auth/password.js';
import type { Credential } from '../../src/store/store.js';
import { TEST_SCRYPT } from '../helpers/runtime.js';

// Counts the scrypt checks; the real function still runs.
const scryptChecks = { count: 0 };
const countingCheck: typeof verifyPassword = (password, stored) => {
  scryptChecks.count += 1;
  return verifyPassword(password, stored);
};

const PASSWORD = 'correct horse battery staple';

describe('CredentialVerifier: lookups and scrypt', () => {
  let passwordHash: string;
  let rows: Map<string, Credential>;
  let lookups: string[];
  let verifier: CredentialVerifier;

  const row = (username: string, revokedAt: string | null = null): Credential => ({
    id: 1,
    username,
    passwordHash,
    createdAt: '2026-01-01T00:00:00.000Z',
    revokedAt,
    expiresAt: null,
    lastUsedAt: null,
    dispensaryIds: null,
  });

  beforeAll(async () => {
    passwordHash = await hashPassword(PASSWORD, TEST_SCRYPT);
  });

  beforeEach(() => {
    rows = new Map([['integrator', row('integrator')]]);
    lookups = [];
    const credentials = {
      find: async (username: string) => {
        lookups.push(username);
        return rows.get(username);
      },
    };
    verifier = new CredentialVerifier(credentials, {
      rememberMs: 60_000,
      scryptCost: TEST_SCRYPT,
      checkPassword: countingCheck,
    });
    scryptChecks.count = 0;
  });

  it('a repeat request is answered from memory: no query, no scrypt', async () => {
    expect(await verifier.verify('integrator', PASSWORD)).toMatchObject({ username: 'integrator' });
    expect(scryptChecks.count).toBe(1);
    for (let index = 0; index < 5; index++) {
      expect(await verifier.verify('integrator', PASSWORD)).toMatchObject({ username: 'integrator' });
    }
    expect(scryptChecks.count).toBe(1);
    expect(lookups).toEqual(['integrator']);
  });

  it('a wrong password for a known username pays a full scrypt every time, without querying again', async () => {
    await verifier.verify('integrator', PASSWORD);
    for (let index = 0; index < 3; index++) {
      expect(await verifier.verify('integrator', `wrong ${index}`)).toBeUndefined();
    }
    expect(scryptChecks.count).toBe(4);
    expect(lookups).toEqual(['integrator']);
  });

  it('an unknown username also pays a full scrypt, and is never kept (guessing cannot fill memory)', async () => {
    for (let index = 0; index < 3; index++) {
      expect(await verifier.verify('nobody', PASSWORD)).toBeUndefined();
    }
    expect(scryptChecks.count).toBe(3);
    expect(lookups).toEqual(['nobody', 'nobody', 'nobody']);
  });

  it('forget (a revoke notice) drops the row and the remembered pair: the next check reads again', async () => {
    await verifier.verify('integrator', PASSWORD);
    rows.set('integrator', row('integrator', '2026-01-02T00:00:00.000Z'));
    verifier.forget('integrator');
    expect(await verifier.verify('integrator', PASSWORD)).toBeUndefined();
    expect(lookups).toEqual(['integrator', 'integrator']);
    expect(scryptChecks.count).toBe(2);
  });

  it('no other username and password pair shares a remembered pair (a NUL moved across the two)', async () => {
    passwordHash = await hashPassword('b\0c', TEST_SCRYPT);
    rows.set('a', row('a'));
    expect(await verifier.verify('a', 'b\0c')).toMatchObject({ username: 'a' });
    expect(await verifier.verify('a\0b', 'c')).toBeUndefined();
    expect(lookups).toEqual(['a', 'a\0b']);
    passwordHash = await hashPassword(PASSWORD, TEST_SCRYPT);
  });

  it('concurrent requests with one pair not yet remembered share one check (one scrypt, one query)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => verifier.verify('integrator', PASSWORD)),
    );
    expect(answers.every((answer) => answer?.username === 'integrator')).toBe(true);
    expect(scryptChecks.count).toBe(1);
    expect(lookups).toEqual(['integrator']);
    // Wrong passwords alike: one shared check answers every request with the same pair.
    const wrong = await Promise.all(Array.from({ length: 5 }, () => verifier.verify('integrator', 'wrong')));
    expect(wrong).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(scryptChecks.count).toBe(2);
  });

  it('a check that was in flight when the revoke arrived is not remembered after it', async () => {
    const pending = verifier.verify('integrator', PASSWORD);
    // The revoke lands while scrypt runs for the pending check.
    await Promise.resolve();
    rows.set('integrator', row('integrator', '2026-01-02T00:00:00.000Z'));
    verifier.forget('integrator');
    expect(await pending).toMatchObject({ username: 'integrator' });
    expect(await verifier.verify('integrator', PASSWORD)).toBeUndefined();
  });
});
