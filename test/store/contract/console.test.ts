import { describe, expect } from 'vitest';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it } from './fixtures.js';

describe(`store.consoleSessions and store.usage on ${DATABASE_KIND}`, () => {
  it('keeps a session by digest, renews its use, and removes it or the ended ones', async ({ store }) => {
    const key = await store.adminKeys.create('ops', 'all', 'digest-ops');
    const session = {
      idDigest: 'digest-a',
      adminKeyId: key.id,
      createdAt: '2026-01-01T10:00:00.000Z',
      lastSeenAt: '2026-01-01T10:00:00.000Z',
      expiresAt: '2026-01-01T22:00:00.000Z',
    };
    await store.consoleSessions.create(session);
    await store.consoleSessions.create({
      ...session,
      idDigest: 'digest-b',
      expiresAt: '2026-01-01T11:00:00.000Z',
    });
    expect(await store.consoleSessions.find('digest-a')).toEqual(session);
    await store.consoleSessions.touch('digest-a', '2026-01-01T12:00:00.000Z');
    expect(await store.consoleSessions.find('digest-a')).toMatchObject({
      lastSeenAt: '2026-01-01T12:00:00.000Z',
    });
    await store.consoleSessions.removeEnded('2026-01-01T11:30:00.000Z', '2026-01-01T09:00:00.000Z');
    expect(await store.consoleSessions.find('digest-b')).toBeUndefined();
    expect(await store.consoleSessions.remove('digest-a')).toBe(true);
    expect(await store.consoleSessions.remove('digest-a')).toBe(false);
    expect(await store.adminKeys.get(key.id)).toMatchObject({ name: 'ops' });
    await store.adminKeys.revoke('ops');
    expect(await store.adminKeys.get(key.id)).toBeUndefined();
  });

  it('adds usage counts to one row per credential and hour', async ({ store }) => {
    const hour = '2026-01-01T10:00:00.000Z';
    await store.usage.add([
      { username: 'a', hour, requests: 3 },
      { username: 'b', hour, requests: 1 },
    ]);
    await store.usage.add([{ username: 'a', hour, requests: 4 }]);
    await store.usage.add([{ username: 'a', hour: '2025-12-01T10:00:00.000Z', requests: 9 }]);
    expect(await store.usage.since('2026-01-01T00:00:00.000Z')).toEqual([
      { username: 'a', hour, requests: 7 },
      { username: 'b', hour, requests: 1 },
    ]);
  });
});
