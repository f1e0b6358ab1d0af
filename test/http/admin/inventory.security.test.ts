import { describe, expect, it } from 'vitest';
import { auditLog, stockOf } from '../../helpers/admin.js';
import { describeRefusalsOnOther, sampleMenuSuite } from '../../helpers/admin-roles.js';
import { expectError, formBHeaders } from '../../helpers/http.js';

const BATCH = [{ item_id: 3, unit: 'gram', amount: 1, stock: 0 }];

describe('sync API: inventory, security', () => {
  const suite = sampleMenuSuite('Other', 'till-one');
  const { watch } = suite;
  const { remember } = watch;
  const state = async () => ({
    one: await stockOf(suite.runtime, suite.runtime.seed.dispensaryId, 3, 'gram', 1),
    two: await stockOf(suite.runtime, suite.other.id, 3, 'gram', 1),
    audit: (await auditLog(suite.runtime)).length,
  });

  describeRefusalsOnOther(suite, (other) => [['PATCH', `/dispensaries/${other}/inventory`, BATCH]], {
    // The revoked key's last batch was applied: the refused one after it was not.
    proof: () => ['PATCH', `/dispensaries/${suite.other.id}/inventory`, [{ ...BATCH[0], stock: 10 }]],
    afterRevoked: (before) => expect((before as { two: unknown }).two).toBe(10),
    state,
  });

  it('403: a key scoped to dispensary 1 cannot set the stock of dispensary 2, nor a batch there', async () => {
    const before = await state();
    const error = expectError(
      remember(await suite.scoped('PATCH', `/dispensaries/${suite.other.id}/inventory`, BATCH)),
      403,
      'forbidden',
    );
    expect(error.message).toContain(`limited to dispensary ${suite.runtime.seed.dispensaryId}`);
    // A bad batch is refused for the scope first: it reveals nothing about dispensary 2's items.
    expectError(
      remember(
        await suite.scoped('PATCH', `/dispensaries/${suite.other.id}/inventory`, [
          { item_id: 99, unit: 'gram', amount: 1, stock: 1 },
        ]),
      ),
      403,
      'forbidden',
    );
    expect(await state()).toEqual(before);
    const menu = await suite.runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders({ ...suite.runtime.seed, token: suite.other.token }),
    });
    expect(menu.json().find((item: { id: number }) => item.id === 3).variants[0].stock).toBe(before.two);
  });

  it('the scoped key sets its own stock, and only its own', async () => {
    const before = await state();
    expect(
      (
        await suite.scoped('PATCH', `/dispensaries/${suite.runtime.seed.dispensaryId}/inventory`, [
          { ...BATCH[0], stock: 77 },
        ])
      ).statusCode,
    ).toBe(200);
    const after = await state();
    expect(after.one).toBe(77);
    expect(after.two).toBe(before.two);
  });

  it('no secret in the audit log or in an error body', async () => {
    await watch.expectNoneLeaked(suite.runtime, 5);
  });
});
