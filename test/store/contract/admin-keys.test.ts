import { describe, expect } from 'vitest';
import { ConflictError } from '../../../src/store/store.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { auditTrail, it, JUST_MADE, lastChanges } from './fixtures.js';

describe(`store.adminKeys on ${DATABASE_KIND}`, () => {
  it('create gives the key; find by digest, list by id', async ({ store }) => {
    const all = await store.adminKeys.create('ops', 'all', 'digest-ops');
    const one = await store.adminKeys.create('shop', 'dispensary:3', 'digest-shop');
    expect(all).toEqual({ id: 1, name: 'ops', scope: 'all', ...JUST_MADE });
    expect(await store.adminKeys.find('digest-shop')).toEqual(one);
    expect(await store.adminKeys.find('digest-unknown')).toBeUndefined();
    expect(await store.adminKeys.list()).toEqual([all, one]);
  });

  it('touch records the last use, listed with the key', async ({ store }) => {
    const key = await store.adminKeys.create('ops', 'all', 'digest-ops');
    await store.adminKeys.touch(key.id, '2026-11-26T10:00:00.000Z');
    expect(await store.adminKeys.list()).toEqual([{ ...key, lastUsedAt: '2026-11-26T10:00:00.000Z' }]);
  });

  it('a duplicate name is a ConflictError naming it', async ({ store }) => {
    await store.adminKeys.create('ops', 'all', 'digest-1');
    await expect(store.adminKeys.create('ops', 'all', 'digest-2')).rejects.toBeInstanceOf(ConflictError);
    await expect(store.adminKeys.create('ops', 'all', 'digest-3')).rejects.toThrow(
      'an admin key named ops exists',
    );
    expect(await store.adminKeys.list()).toHaveLength(1);
  });

  it('revoke once: a revoked key is listed with its time but no longer found', async ({ store }) => {
    await store.adminKeys.create('ops', 'all', 'digest-ops');
    expect(await store.adminKeys.revoke('ops')).toBe(true);
    expect(await store.adminKeys.revoke('ops')).toBe(false);
    expect(await store.adminKeys.revoke('nobody')).toBe(false);
    expect(await store.adminKeys.find('digest-ops')).toBeUndefined();
    expect(await store.adminKeys.list()).toEqual([
      expect.objectContaining({ name: 'ops', revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
    ]);
  });

  it('create and revoke record an admin_key notice naming the key, and an audit entry', async ({ store }) => {
    await store.adminKeys.create('ops', 'all', 'digest-ops', 'key:root');
    await store.adminKeys.revoke('ops', 'key:root');
    expect(await lastChanges(store, 0)).toEqual(Array(2).fill(['admin_key', null, 'ops']));
    expect(await auditTrail(store)).toEqual([
      ['key:root', 'admin_key.create', { name: 'ops', scope: 'all' }],
      ['key:root', 'admin_key.revoke', { name: 'ops' }],
    ]);
  });
});
