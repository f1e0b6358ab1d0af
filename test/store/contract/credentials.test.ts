import { describe, expect } from 'vitest';
import { ConflictError } from '../../../src/store/store.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { auditTrail, it, JUST_MADE, lastChanges } from './fixtures.js';

describe(`store.credentials on ${DATABASE_KIND}`, () => {
  it('create gives the credential with its limits, which find and list then give', async ({ store }) => {
    const alice = await store.credentials.create('alice', 'hash-a');
    expect(alice).toEqual({
      ...JUST_MADE,
      id: 1,
      username: 'alice',
      passwordHash: 'hash-a',
      expiresAt: null,
      dispensaryIds: null,
    });
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const bob = await store.credentials.create('bob', 'hash-b', 'cli', { expiresAt, dispensaryIds: [2, 7] });
    expect(bob).toMatchObject({ username: 'bob', expiresAt, dispensaryIds: [2, 7] });
    expect(await store.credentials.find('alice')).toEqual(alice);
    expect(await store.credentials.find('bob')).toEqual(bob);
    expect(await store.credentials.find('nobody')).toBeUndefined();
    expect(await store.credentials.list()).toEqual([alice, bob]);
  });

  it('raise ConflictError on a duplicate username, also after revoke, and keep the first', async ({
    store,
  }) => {
    await store.credentials.create('alice', 'hash-1');
    await expect(store.credentials.create('alice', 'hash-2')).rejects.toBeInstanceOf(ConflictError);
    await store.credentials.revoke('alice');
    await expect(store.credentials.create('alice', 'hash-3')).rejects.toThrow(/alice exists/);
    expect(await store.credentials.find('alice')).toMatchObject({ passwordHash: 'hash-1' });
    expect(await store.credentials.list()).toHaveLength(1);
  });

  it('revoke a credential once, keeping it listed with the time', async ({ store }) => {
    await store.credentials.create('bob', 'hash');
    expect(await store.credentials.revoke('bob')).toBe(true);
    expect(await store.credentials.revoke('bob')).toBe(false);
    expect(await store.credentials.revoke('nobody')).toBe(false);
    const [bob] = await store.credentials.list();
    expect(bob).toMatchObject({ username: 'bob', revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(await store.credentials.find('bob')).toEqual(bob);
  });

  it('touch records the last use, and is not a change: no notice, no audit entry', async ({ store }) => {
    await store.credentials.create('carol', 'hash');
    const seq = await store.changes.lastSeq();
    const audited = (await store.audit.list({ limit: 100 })).length;
    const at = '2026-01-02T03:04:05.678Z';
    await store.credentials.touch('carol', at);
    await store.credentials.touch('nobody', at);
    expect(await store.credentials.find('carol')).toMatchObject({ lastUsedAt: at });
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await store.audit.list({ limit: 100 })).toHaveLength(audited);
  });

  it('a username with NUL finds nothing and revokes nothing, as on every database (no 500)', async ({
    store,
  }) => {
    // PostgreSQL text cannot hold NUL: without the dialect's check, these queries fail outright.
    await store.credentials.create('nul', 'hash');
    expect(await store.credentials.find('nul\0')).toBeUndefined();
    expect(await store.credentials.find('\0')).toBeUndefined();
    expect(await store.credentials.revoke('nul\0')).toBe(false);
    expect(await store.credentials.find('nul')).toMatchObject({ revokedAt: null });
  });

  it('issue and revoke record a credential notice naming the username, and an audit entry', async ({
    store,
  }) => {
    await store.credentials.create('dave', 'hash', 'key:ops', { dispensaryIds: [1] });
    await store.credentials.revoke('dave', 'key:ops');
    expect(await lastChanges(store, 0)).toEqual(Array(2).fill(['credential', null, 'dave']));
    expect(await auditTrail(store)).toEqual([
      ['key:ops', 'credential.issue', { username: 'dave', expires_at: null, dispensary_ids: [1] }],
      ['key:ops', 'credential.revoke', { username: 'dave' }],
    ]);
  });
});
