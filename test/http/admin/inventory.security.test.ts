import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, auditLog, stockOf, syncTestRuntime } from '../../helpers/admin.js';
import { describeAdminKeyRefusals, secretWatch, securityFixture } from '../../helpers/admin-roles.js';
import { expectError, formBHeaders } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

const BATCH = [{ item_id: 3, unit: 'gram', amount: 1, stock: 0 }];

describe('sync API: inventory, security', () => {
  let runtime: TestRuntime;
  let scoped: AdminCall;
  let adminSecret: string;
  let other: { id: number; token: string };
  const watch = secretWatch();
  const { secrets, remember } = watch;
  const state = async () => ({
    one: await stockOf(runtime, runtime.seed.dispensaryId, 3, 'gram', 1),
    two: await stockOf(runtime, other.id, 3, 'gram', 1),
    audit: (await auditLog(runtime)).length,
  });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    ({ adminSecret, other, scoped } = await securityFixture(
      runtime,
      { other: { name: 'Other' }, otherMenu: SAMPLE_MENU, scopedName: 'till-one' },
      secrets,
    ));
  });
  afterAll(() => runtime.close());

  describeAdminKeyRefusals({
    watch,
    context: () => ({ runtime, key: adminSecret, token: other.token }),
    routes: () => [['PATCH', `/dispensaries/${other.id}/inventory`, BATCH]],
    // The revoked key's last batch was applied: the refused one after it was not.
    proof: () => ['PATCH', `/dispensaries/${other.id}/inventory`, [{ ...BATCH[0], stock: 10 }]],
    afterRevoked: (before) => expect((before as { two: unknown }).two).toBe(10),
    state,
  });

  it('403: a key scoped to dispensary 1 cannot set the stock of dispensary 2, nor a batch there', async () => {
    const before = await state();
    const error = expectError(
      remember(await scoped('PATCH', `/dispensaries/${other.id}/inventory`, BATCH)),
      403,
      'forbidden',
    );
    expect(error.message).toContain(`limited to dispensary ${runtime.seed.dispensaryId}`);
    // A bad batch is refused for the scope first: it reveals nothing about dispensary 2's items.
    expectError(
      remember(
        await scoped('PATCH', `/dispensaries/${other.id}/inventory`, [
          { item_id: 99, unit: 'gram', amount: 1, stock: 1 },
        ]),
      ),
      403,
      'forbidden',
    );
    expect(await state()).toEqual(before);
    const menu = await runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders({ ...runtime.seed, token: other.token }),
    });
    expect(menu.json().find((item: { id: number }) => item.id === 3).variants[0].stock).toBe(before.two);
  });

  it('the scoped key sets its own stock, and only its own', async () => {
    const before = await state();
    expect(
      (
        await scoped('PATCH', `/dispensaries/${runtime.seed.dispensaryId}/inventory`, [
          { ...BATCH[0], stock: 77 },
        ])
      ).statusCode,
    ).toBe(200);
    const after = await state();
    expect(after.one).toBe(77);
    expect(after.two).toBe(before.two);
  });

  it('no secret in the audit log or in an error body', async () => {
    await watch.expectNoneLeaked(runtime, 5);
  });
});
