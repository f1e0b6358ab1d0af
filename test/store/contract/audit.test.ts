import { describe, expect } from 'vitest';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it, pause } from './fixtures.js';

describe(`store.audit on ${DATABASE_KIND}`, () => {
  it('lists the latest entries, oldest first, with the actor (cli by default) and detail', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.dispensaries.setToken(a.id, 'digest-a2', 'key:ops');
    await store.credentials.create('alice', 'hash');
    const all = await store.audit.list({ limit: 10 });
    expect(all.map(({ id, actor, dispensaryId, action }) => [id, actor, dispensaryId, action])).toEqual([
      [1, 'cli', a.id, 'dispensary.create'],
      [2, 'key:ops', a.id, 'dispensary.rotate_token'],
      [3, 'cli', null, 'credential.issue'],
    ]);
    expect(all[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await store.audit.list({ limit: 2 })).map((entry) => entry.id)).toEqual([2, 3]);
  });

  it('filters by dispensary and by time', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.menus.replace(a.id, []);
    await pause(5);
    const since = new Date().toISOString();
    await pause(5);
    await store.menus.replace(b.id, []);
    await store.dispensaries.updateStoreInfo(a.id, { city: 'Oakland' });
    const ofA = await store.audit.list({ dispensaryId: a.id, limit: 10 });
    expect(ofA.map((entry) => entry.action)).toEqual([
      'dispensary.create',
      'menu.replace',
      'dispensary.update',
    ]);
    const recent = await store.audit.list({ since, limit: 10 });
    expect(recent.map((entry) => [entry.dispensaryId, entry.action])).toEqual([
      [b.id, 'menu.replace'],
      [a.id, 'dispensary.update'],
    ]);
    expect(await store.audit.list({ dispensaryId: b.id, since, limit: 10 })).toHaveLength(1);
    expect(await store.audit.list({ dispensaryId: 999, limit: 10 })).toEqual([]);
  });
});
