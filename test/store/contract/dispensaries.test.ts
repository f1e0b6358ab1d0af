import { describe, expect } from 'vitest';
import { ConflictError } from '../../../src/store/store.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it, item, lastChanges } from './fixtures.js';

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe(`store.dispensaries on ${DATABASE_KIND}`, () => {
  it('create gives the new dispensary, which get and list then find', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    expect(a).toEqual({
      id: 1,
      name: 'A',
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: a.createdAt,
    });
    expect(await store.dispensaries.get(a.id)).toEqual(a);
    expect(await store.dispensaries.get(999)).toBeUndefined();
    expect(await store.dispensaries.list()).toEqual([
      {
        ...a,
        published: false,
        slug: null,
        showStock: false,
        showRegularPrice: true,
        showPotency: true,
        itemCount: 0,
        activeItemCount: 0,
      },
    ]);
  });

  it('list counts each dispensary’s items and active items, as JS numbers, by id', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.menus.replace(a.id, [item(1), item(2, { active: false }), item(3)]);
    const summary = await store.dispensaries.list();
    expect(summary.map((d) => [d.id, d.name, d.itemCount, d.activeItemCount])).toEqual([
      [a.id, 'A', 3, 2],
      [b.id, 'B', 0, 0],
    ]);
    expect(typeof summary[0]!.itemCount).toBe('number');
    expect(typeof summary[0]!.activeItemCount).toBe('number');
  });

  it('list says whether each dispensary is published, and where', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.dispensaries.setPublishing(a.id, { published: true, slug: 'a-shop', showStock: true });
    await store.menus.replace(a.id, [item(1), item(2)]);
    const summary = await store.dispensaries.list();
    expect(summary.map((d) => [d.id, d.published, d.slug, d.showStock, d.itemCount])).toEqual([
      [a.id, true, 'a-shop', true, 2],
      [b.id, false, null, false, 0],
    ]);
  });

  it('find a dispensary by its token digest, and only by the current one', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    expect(await store.dispensaries.findByTokenDigest('digest-a')).toEqual(a);
    expect(await store.dispensaries.setToken(a.id, 'digest-a2')).toBe(true);
    expect(await store.dispensaries.findByTokenDigest('digest-a')).toBeUndefined();
    expect(await store.dispensaries.findByTokenDigest('digest-a2')).toMatchObject({ id: a.id, name: 'A' });
    expect(await store.dispensaries.findByTokenDigest('unknown')).toBeUndefined();
  });

  it('a rotated token keeps working until its grace period ends, flagged with that time', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const until = new Date(Date.now() + 60_000).toISOString();
    await store.dispensaries.setToken(a.id, 'digest-b', 'cli', until);
    expect(await store.dispensaries.findByTokenDigest('digest-b')).not.toHaveProperty('tokenExpiresAt');
    expect(await store.dispensaries.findByTokenDigest('digest-a')).toMatchObject({
      id: a.id,
      tokenExpiresAt: until,
    });
    // Rotating again drops the grace of the first token; one already past its time no longer matches.
    await store.dispensaries.setToken(a.id, 'digest-c', 'cli', new Date(Date.now() - 1).toISOString());
    expect(await store.dispensaries.findByTokenDigest('digest-a')).toBeUndefined();
    expect(await store.dispensaries.findByTokenDigest('digest-b')).toBeUndefined();
    expect(await store.dispensaries.findByTokenDigest('digest-c')).toMatchObject({ id: a.id });
  });

  it('a duplicate token digest is a ConflictError, and leaves no dispensary nor notice', async ({
    store,
  }) => {
    await store.dispensaries.create('A', 'same');
    const seq = await store.changes.lastSeq();
    await expect(store.dispensaries.create('B', 'same')).rejects.toBeInstanceOf(ConflictError);
    await expect(store.dispensaries.create('B', 'same')).rejects.toThrow(
      'a dispensary with that token exists',
    );
    expect((await store.dispensaries.list()).map((d) => d.name)).toEqual(['A']);
    expect(await store.changes.lastSeq()).toBe(seq);
  });

  it('removing a dispensary removes its menu, and only its own', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.menus.replace(a.id, [item(1), item(2)]);
    await store.menus.replace(b.id, [item(1)]);
    expect(await store.dispensaries.remove(a.id)).toBe(true);
    expect(await store.dispensaries.get(a.id)).toBeUndefined();
    expect(await store.menus.read(a.id)).toEqual([]);
    expect((await store.menus.read(b.id)).map((entry) => entry.id)).toEqual([1]);
    expect(await store.dispensaries.remove(a.id)).toBe(false);
    const [entry] = await store.audit.list({ dispensaryId: a.id, limit: 1 });
    expect(entry).toMatchObject({ action: 'dispensary.remove', detail: { items: 2, price_entries: 2 } });
  });

  it('store information: defaults, a patch sets only its fields, and reads back exactly', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const info = await store.dispensaries.getStoreInfo(a.id);
    expect(info).toMatchObject({ name: 'A', city: null, currency: 'USD', hours: null, logo: null });
    const hours = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
        day,
        day === 'sunday'
          ? { open: null, close: null, closed: true }
          : { open: '09:00', close: '21:00', closed: false },
      ]),
    );
    const updated = await store.dispensaries.updateStoreInfo(a.id, {
      city: 'Oakland',
      postalCode: '94612',
      licenseNumber: "C10-'quoted'-日本",
      currency: 'CAD',
      hours: hours as never,
    });
    expect(updated).toMatchObject({
      name: 'A',
      city: 'Oakland',
      postalCode: '94612',
      currency: 'CAD',
      hours,
    });
    expect(updated!.licenseNumber).toBe("C10-'quoted'-日本");
    expect(await store.dispensaries.getStoreInfo(a.id)).toEqual(updated);
    const cleared = await store.dispensaries.updateStoreInfo(a.id, { city: null, hours: null });
    expect(cleared).toMatchObject({ city: null, hours: null, postalCode: '94612' });
    expect(await store.dispensaries.getStoreInfo(999)).toBeUndefined();
    expect(await store.dispensaries.updateStoreInfo(999, { city: 'x' })).toBeUndefined();
  });

  it('each write records its notice and audit entry; a write that finds nothing records none', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a', 'key:ops');
    await store.dispensaries.setToken(a.id, 'digest-b', 'key:ops');
    await store.dispensaries.updateStoreInfo(a.id, { city: 'Oakland' }, 'key:ops');
    await store.dispensaries.remove(a.id, 'key:ops');
    const seq = await store.changes.lastSeq();
    expect(await store.dispensaries.setToken(999, 'x')).toBe(false);
    expect(await store.dispensaries.remove(999)).toBe(false);
    expect(await store.dispensaries.updateStoreInfo(999, { city: 'x' })).toBeUndefined();
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await lastChanges(store, 0)).toEqual([
      ['dispensary', a.id, null],
      ['dispensary', a.id, null],
      ['store', a.id, null],
      ['dispensary', a.id, null],
    ]);
    const audit = await store.audit.list({ limit: 10 });
    expect(
      audit.map(({ actor, dispensaryId, action, detail }) => [actor, dispensaryId, action, detail]),
    ).toEqual([
      ['key:ops', a.id, 'dispensary.create', { name: 'A' }],
      ['key:ops', a.id, 'dispensary.rotate_token', { previous_valid_until: null }],
      ['key:ops', a.id, 'dispensary.update', { fields: ['city'] }],
      ['key:ops', a.id, 'dispensary.remove', { items: 0, price_entries: 0 }],
    ]);
  });
});
