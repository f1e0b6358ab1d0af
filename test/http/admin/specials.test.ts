import { describe, expect, it } from 'vitest';
import { SPEC_ONLY_PRICE_FIELDS } from '../../domain/item-builder.js';
import { auditLog } from '../../helpers/admin.js';
import { describeRefusalsOnOther, sampleMenuSuite } from '../../helpers/admin-roles.js';
import { expectError, formBHeaders } from '../../helpers/http.js';

const FLOWER_DEAL = {
  name: 'Flower Friday',
  kind: 'percent_off',
  value: 10,
  applies_to: { product_types: ['Flower'] },
};

/** A special's schedule when none is given: no dates, every day, all day. */
const UNSCHEDULED = {
  starts_at: null,
  ends_at: null,
  days_of_week: null,
  daily_start: null,
  daily_end: null,
};

describe('sync API: specials', () => {
  const suite = sampleMenuSuite('Other Shop', 'shop-one');
  const { remember } = suite.watch;
  const one = () => suite.runtime.seed.dispensaryId;
  const specialsOf = async (id: number) => (await suite.admin('GET', `/dispensaries/${id}/specials`)).json();
  /** Both dispensaries' specials and menus, the feed's head and the audit log: what a refusal leaves alone. */
  const state = async () => ({
    one: await specialsOf(one()),
    two: await specialsOf(suite.other.id),
    menu: (await suite.admin('GET', `/dispensaries/${one()}/menu`)).json(),
    head: await suite.runtime.services.store.menuChanges.head(),
    audit: (await auditLog(suite.runtime)).length,
  });

  describe('create, read, change, delete', () => {
    it('creates a special with its defaults, audit-logged, and lists and reads it', async () => {
      const created = await suite.admin('POST', `/dispensaries/${one()}/specials`, FLOWER_DEAL);
      expect(created.statusCode, created.body).toBe(201);
      const special = created.json();
      expect(special).toEqual({
        id: expect.any(Number),
        dispensary_id: one(),
        ...FLOWER_DEAL,
        description: '',
        applies_to: { item_ids: [], external_ids: [], brands: [], product_types: ['Flower'], tags: [] },
        menu_type: 'both',
        ...UNSCHEDULED,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(await specialsOf(one())).toEqual([special]);
      expect((await suite.admin('GET', `/dispensaries/${one()}/specials/${special.id}`)).json()).toEqual(
        special,
      );
      const [entry] = await suite.runtime.services.audit.list({ limit: 1 });
      expect(entry).toMatchObject({ action: 'special.create', actor: 'key:operator', dispensaryId: one() });

      const changed = await suite.admin('PATCH', `/dispensaries/${one()}/specials/${special.id}`, {
        ends_at: '2099-01-01T00:00:00-05:00',
      });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toMatchObject({ ...FLOWER_DEAL, ends_at: '2099-01-01T05:00:00.000Z' });

      const deleted = await suite.admin('DELETE', `/dispensaries/${one()}/specials/${special.id}`);
      expect(deleted.statusCode).toBe(204);
      expect(await specialsOf(one())).toEqual([]);
      expectError(
        await suite.admin('GET', `/dispensaries/${one()}/specials/${special.id}`),
        404,
        'not_found',
      );
    });

    it('an Idempotency-Key retry answers the first answer and creates once', async () => {
      const headers = { 'idempotency-key': 'special-once' };
      const first = await suite.admin('POST', `/dispensaries/${one()}/specials`, FLOWER_DEAL, headers);
      const again = await suite.admin('POST', `/dispensaries/${one()}/specials`, FLOWER_DEAL, headers);
      expect(first.statusCode).toBe(201);
      expect(again.body).toBe(first.body);
      expect(await specialsOf(one())).toHaveLength(1);
      await suite.admin('DELETE', `/dispensaries/${one()}/specials/${first.json().id}`);
    });
  });

  describe('the schedule preview', () => {
    it('lists each special’s spans in the coming days from now; days is 1 to 31', async () => {
      const daily = await suite.admin('POST', `/dispensaries/${one()}/specials`, {
        ...FLOWER_DEAL,
        daily_start: '16:00',
        daily_end: '18:00',
      });
      const ended = await suite.admin('POST', `/dispensaries/${one()}/specials`, {
        ...FLOWER_DEAL,
        name: 'Gone',
        ends_at: '2020-01-01T00:00:00Z',
      });
      const answer = await suite.admin('GET', `/dispensaries/${one()}/specials/schedule?days=3`);
      expect(answer.statusCode, answer.body).toBe(200);
      const schedule = answer.json();
      expect(Date.parse(schedule.to) - Date.parse(schedule.from)).toBe(3 * 86_400_000);
      const [first, second] = schedule.specials;
      expect(first).toMatchObject({ id: daily.json().id, name: 'Flower Friday', menu_type: 'both' });
      // Three days hold three or four daily windows (the store has no zone: UTC), each ending at 18:00.
      expect(first.periods.length).toBeGreaterThanOrEqual(3);
      expect(first.periods.length).toBeLessThanOrEqual(4);
      for (const period of first.periods) expect(period.ends_at).toMatch(/T18:00:00\.000Z$/);
      expect(second).toMatchObject({ id: ended.json().id, periods: [] });
      for (const days of ['0', '32', 'seven']) {
        expectError(
          await suite.admin('GET', `/dispensaries/${one()}/specials/schedule?days=${days}`),
          400,
          'invalid_request',
        );
      }
      expectError(await suite.admin('GET', '/dispensaries/9999/specials/schedule'), 404, 'not_found');
      for (const id of [daily.json().id, ended.json().id]) {
        await suite.admin('DELETE', `/dispensaries/${one()}/specials/${id}`);
      }
    });
  });

  describe('effective prices', () => {
    it('the sync API’s menu read shows each entry’s price now and its special; Form B’s /menu stays as it was', async () => {
      const formB = () =>
        suite.runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(suite.runtime.seed) });
      const before = await formB();
      const head = await suite.runtime.services.store.menuChanges.head();
      const special = (await suite.admin('POST', `/dispensaries/${one()}/specials`, FLOWER_DEAL)).json();
      const menu = (await suite.admin('GET', `/dispensaries/${one()}/menu`)).json();
      const blueDream = menu.find((item: { id: number }) => item.id === 3);
      const applied = { id: special.id, name: 'Flower Friday', ends_at: null };
      const written = { ...SPEC_ONLY_PRICE_FIELDS };
      expect(blueDream.prices).toEqual([
        {
          unit: 'gram',
          amount: 1,
          price: 12,
          stock: 10,
          ...written,
          net_weight_g: 1,
          price_per_gram: 12,
          effective_price: 10.8,
          special: applied,
          effective_med_price: null,
          med_special: null,
        },
        {
          unit: 'ounce',
          amount: 0.125,
          price: 38.5,
          stock: 0,
          ...written,
          net_weight_g: 3.5,
          price_per_gram: 11,
          effective_price: 34.65,
          special: applied,
          effective_med_price: null,
          med_special: null,
        },
      ]);
      const brownie = menu.find((item: { id: number }) => item.id === 1);
      expect(brownie.prices[0]).toMatchObject({ price: 22.99, effective_price: 22.99, special: null });
      // The flower items it reprices are changes of the live feed; the others are not.
      const changes = await suite.runtime.services.store.menuChanges.since(head, 100);
      expect(changes.map((change) => [change.type, change.itemId])).toEqual([['item.upserted', 3]]);
      const after = await formB();
      expect(after.body).toBe(before.body);
      await suite.admin('DELETE', `/dispensaries/${one()}/specials/${special.id}`);
    });
  });

  describe('medical prices', () => {
    it('a med special lowers med_price only, a rec one price only; the menu read shows each with its special', async () => {
      const path = `/dispensaries/${one()}/menu/items/3`;
      const original = (await suite.admin('GET', `/dispensaries/${one()}/menu`)).json();
      const prices = [
        { unit: 'gram', amount: 1, price: 12, med_price: 10, stock: 10 },
        { unit: 'ounce', amount: 0.125, price: 38.5, stock: 0 },
      ];
      expect((await suite.admin('PATCH', path, { prices })).statusCode).toBe(200);
      const create = async (fields: object) =>
        (await suite.admin('POST', `/dispensaries/${one()}/specials`, { ...FLOWER_DEAL, ...fields })).json();
      const med = await create({ name: 'Patients', menu_type: 'med', kind: 'amount_off', value: 2.5 });
      const rec = await create({ name: 'Adults', menu_type: 'rec', value: 5 });
      const menu = (await suite.admin('GET', `/dispensaries/${one()}/menu`)).json();
      const entries = menu.find((item: { id: number }) => item.id === 3).prices;
      const applied = (special: { id: number; name: string }) => ({
        id: special.id,
        name: special.name,
        ends_at: null,
      });
      expect(entries[0]).toMatchObject({
        price: 12,
        med_price: 10,
        effective_price: 11.4,
        special: applied(rec),
        effective_med_price: 7.5,
        med_special: applied(med),
      });
      // No med_price: no medical price to lower.
      expect(entries[1]).toMatchObject({
        effective_price: 36.58,
        special: applied(rec),
        effective_med_price: null,
        med_special: null,
      });
      for (const special of [med, rec])
        await suite.admin('DELETE', `/dispensaries/${one()}/specials/${special.id}`);
      const restored = original
        .find((item: { id: number }) => item.id === 3)
        .prices.map(({ unit, amount, price, stock }: Record<string, unknown>) => ({
          unit,
          amount,
          price,
          stock,
        }));
      expect((await suite.admin('PATCH', path, { prices: restored })).statusCode).toBe(200);
    });
  });

  describe('400: refused the way an invalid item is, nothing changes', () => {
    it.each([
      [
        'ends before it starts',
        { ...FLOWER_DEAL, starts_at: '2026-05-01T00:00:00Z', ends_at: '2026-04-01T00:00:00Z' },
        'ends_at',
      ],
      ['has no target', { ...FLOWER_DEAL, applies_to: {} }, 'applies_to'],
      ['has an unknown target list', { ...FLOWER_DEAL, applies_to: { skus: ['1'] } }, 'applies_to.skus'],
      [
        'has a bad item id',
        { ...FLOWER_DEAL, applies_to: { item_ids: ['three'] } },
        'applies_to.item_ids[0]',
      ],
      ['has half a daily window', { ...FLOWER_DEAL, daily_start: '16:00' }, 'daily_end'],
      ['has a bad weekday', { ...FLOWER_DEAL, days_of_week: ['funday'] }, 'days_of_week[0]'],
      ['takes more than all', { ...FLOWER_DEAL, value: 150 }, 'value'],
      ['is not an object', [FLOWER_DEAL], 'special'],
    ])('a special that %s', async (_label, body, field) => {
      const before = await state();
      const error = expectError(
        await suite.admin('POST', `/dispensaries/${one()}/specials`, body),
        400,
        'invalid_request',
      );
      expect(error.problems!.map((problem) => problem.field)).toEqual([field]);
      expect(error.message).toContain('nothing was changed');
      expect(await state()).toEqual(before);
    });

    it('a change that would end it before it starts is refused whole', async () => {
      const special = (
        await suite.admin('POST', `/dispensaries/${one()}/specials`, {
          ...FLOWER_DEAL,
          starts_at: '2026-05-01T00:00:00Z',
        })
      ).json();
      const before = await state();
      const error = expectError(
        await suite.admin('PATCH', `/dispensaries/${one()}/specials/${special.id}`, {
          ends_at: '2026-04-01T00:00:00Z',
        }),
        400,
        'invalid_request',
      );
      expect(error.problems).toEqual([
        { field: 'ends_at', message: expect.stringContaining('must be after starts_at') },
      ]);
      expect(await state()).toEqual(before);
      await suite.admin('DELETE', `/dispensaries/${one()}/specials/${special.id}`);
    });

    it('an item id no item has is accepted, and matches nothing until such an item exists', async () => {
      const created = await suite.admin('POST', `/dispensaries/${one()}/specials`, {
        ...FLOWER_DEAL,
        applies_to: { item_ids: [999] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const menu = (await suite.admin('GET', `/dispensaries/${one()}/menu`)).json();
      expect(
        menu.every((item: { prices: { special: unknown }[] }) =>
          item.prices.every((p) => p.special === null),
        ),
      ).toBe(true);
      await suite.admin('DELETE', `/dispensaries/${one()}/specials/${created.json().id}`);
    });
  });

  const routes = (id: number) =>
    [
      ['GET', `/dispensaries/${id}/specials`, undefined],
      ['POST', `/dispensaries/${id}/specials`, FLOWER_DEAL],
      ['GET', `/dispensaries/${id}/specials/1`, undefined],
      ['PATCH', `/dispensaries/${id}/specials/1`, { name: 'Hijacked' }],
      ['DELETE', `/dispensaries/${id}/specials/1`, undefined],
    ] as const;

  describeRefusalsOnOther(suite, routes, { state });

  describe('a key scoped to dispensary 1', () => {
    it('manages dispensary 1’s specials', async () => {
      const created = remember(await suite.scoped('POST', `/dispensaries/${one()}/specials`, FLOWER_DEAL));
      expect(created.statusCode, created.body).toBe(201);
      expect(
        (await suite.scoped('DELETE', `/dispensaries/${one()}/specials/${created.json().id}`)).statusCode,
      ).toBe(204);
    });

    it.each([0, 1, 2, 3, 4])('request %i on dispensary 2’s specials: 403, nothing changes', async (index) => {
      const special = (
        await suite.admin('POST', `/dispensaries/${suite.other.id}/specials`, FLOWER_DEAL)
      ).json();
      const before = await state();
      const [method, path, body] = routes(suite.other.id)[index]!;
      const error = expectError(
        remember(await suite.scoped(method, path.replace('/specials/1', `/specials/${special.id}`), body)),
        403,
        'forbidden',
      );
      expect(error.message).toBe(`This admin key is limited to dispensary ${one()}.`);
      expect(await state()).toEqual(before);
      await suite.admin('DELETE', `/dispensaries/${suite.other.id}/specials/${special.id}`);
    });
  });
});
