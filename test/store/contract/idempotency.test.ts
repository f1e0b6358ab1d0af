import { describe, expect } from 'vitest';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it } from './fixtures.js';

const answer = (createdAt: string, response = '{"ok":true}') => ({
  requestDigest: 'digest-request',
  status: 201,
  response,
  createdAt,
});

describe(`store.idempotency on ${DATABASE_KIND}`, () => {
  it('finds a saved answer by admin key and key, not before the given time', async ({ store }) => {
    const key = await store.adminKeys.create('ops', 'all', 'digest-ops');
    const other = await store.adminKeys.create('other', 'all', 'digest-other');
    const saved = answer('2026-01-01T10:00:00.000Z', '{"text":"日本 \\"quoted\\""}');
    await store.idempotency.save(key.id, 'k-1', saved);
    expect(await store.idempotency.find(key.id, 'k-1', '2026-01-01T09:00:00.000Z')).toEqual(saved);
    expect(await store.idempotency.find(key.id, 'k-1', '2026-01-01T10:00:00.000Z')).toEqual(saved);
    expect(await store.idempotency.find(key.id, 'k-1', '2026-01-01T10:00:00.001Z')).toBeUndefined();
    expect(await store.idempotency.find(key.id, 'k-2', '2026-01-01T09:00:00.000Z')).toBeUndefined();
    expect(await store.idempotency.find(other.id, 'k-1', '2026-01-01T09:00:00.000Z')).toBeUndefined();
  });

  it('saving under a key that holds an expired answer replaces it', async ({ store }) => {
    const key = await store.adminKeys.create('ops', 'all', 'digest-ops');
    await store.idempotency.save(key.id, 'k', answer('2026-01-01T10:00:00.000Z', 'old'));
    await store.idempotency.save(key.id, 'k', answer('2026-01-02T10:00:00.000Z', 'new'));
    expect(await store.idempotency.find(key.id, 'k', '2026-01-01T00:00:00.000Z')).toMatchObject({
      response: 'new',
    });
  });

  it('deleteBefore drops only older answers; none of this is a change or audited', async ({ store }) => {
    const key = await store.adminKeys.create('ops', 'all', 'digest-ops');
    const seq = await store.changes.lastSeq();
    await store.idempotency.save(key.id, 'old', answer('2026-01-01T10:00:00.000Z'));
    await store.idempotency.save(key.id, 'new', answer('2026-01-03T10:00:00.000Z'));
    await store.idempotency.deleteBefore('2026-01-02T00:00:00.000Z');
    const long = '2000-01-01T00:00:00.000Z';
    expect(await store.idempotency.find(key.id, 'old', long)).toBeUndefined();
    expect(await store.idempotency.find(key.id, 'new', long)).toBeDefined();
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await store.audit.list({ limit: 10 })).toHaveLength(1);
  });
});
