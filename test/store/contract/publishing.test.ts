import { describe, expect } from 'vitest';
import { ConflictError } from '../../../src/store/store.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it, lastChanges } from './fixtures.js';

describe(`store.dispensaries publishing on ${DATABASE_KIND}`, () => {
  it('a new dispensary is private, with no slug, and hides stock; regular prices and potency are shown', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    expect(await store.dispensaries.getPublishing(a.id)).toEqual({
      published: false,
      slug: null,
      showStock: false,
      showRegularPrice: true,
      showPotency: true,
    });
    expect(await store.dispensaries.getPublishing(999)).toBeUndefined();
  });

  it('publishes with a slug, found by it; unpublishing keeps the slug; each is one dispensary notice', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const seq = await store.changes.lastSeq();
    expect(await store.dispensaries.setPublishing(a.id, { published: true, slug: 'green-a' })).toEqual({
      published: true,
      slug: 'green-a',
      showStock: false,
      showRegularPrice: true,
      showPotency: true,
    });
    expect(await store.dispensaries.findBySlug('green-a')).toEqual({
      id: a.id,
      published: true,
      slug: 'green-a',
      showStock: false,
      showRegularPrice: true,
      showPotency: true,
    });
    await store.dispensaries.setPublishing(a.id, {
      published: false,
      showStock: true,
      showRegularPrice: false,
      showPotency: false,
    });
    expect(await store.dispensaries.findBySlug('green-a')).toMatchObject({
      published: false,
      showStock: true,
      showRegularPrice: false,
      showPotency: false,
    });
    expect(await lastChanges(store, seq)).toEqual([
      ['dispensary', a.id, null],
      ['dispensary', a.id, null],
    ]);
    expect(await store.dispensaries.setPublishing(999, { published: true })).toBeUndefined();
    expect(await store.dispensaries.findBySlug('nobody')).toBeUndefined();
  });

  it('a slug another dispensary has is a ConflictError that writes nothing, store fields included', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.dispensaries.setPublishing(a.id, { published: true, slug: 'taken' });
    const seq = await store.changes.lastSeq();
    await expect(
      store.dispensaries.setPublishing(b.id, { published: true, slug: 'taken' }, 'cli', { city: 'Oakland' }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await store.dispensaries.getPublishing(b.id)).toEqual({
      published: false,
      slug: null,
      showStock: false,
      showRegularPrice: true,
      showPotency: true,
    });
    expect((await store.dispensaries.getStoreInfo(b.id))?.city).toBeNull();
    expect(await store.changes.lastSeq()).toBe(seq);
  });

  it('store fields given with the publishing fields are written in the same transaction', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.dispensaries.setPublishing(a.id, { published: true, slug: 'a-shop' }, 'cli', {
      city: 'Oakland',
    });
    expect((await store.dispensaries.getStoreInfo(a.id))?.city).toBe('Oakland');
  });
});
