import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AdminCall, auditLog, expectNoSecrets } from '../../helpers/admin.js';
import { describeAdminKeyRefusals, securitySuite } from '../../helpers/admin-roles.js';
import { expectError } from '../../helpers/http.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const URL_A = 'https://hooks.example.com/menu';

describe('sync API: webhooks', () => {
  const suite = securitySuite(undefined, { other: { name: 'Other Shop' }, scopedName: 'shop-pos' });
  const { watch } = suite;
  const { secrets, remember } = watch;
  const ids = async () =>
    (await suite.admin('GET', '/webhooks')).json().map((hook: { id: number }) => hook.id);
  const subscribe = (body: Record<string, unknown> = {}, call: AdminCall = suite.admin) =>
    call('POST', '/webhooks', {
      credential: suite.runtime.seed.username,
      dispensary_id: suite.runtime.seed.dispensaryId,
      url: URL_A,
      ...body,
    });

  it('create: 201 with the secret (whsec_, 32 random bytes) once; then read without it', async () => {
    const response = await subscribe({ events: ['item.upserted', 'item.removed'] });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json();
    secrets.push(created.secret);
    expect(created).toEqual({
      id: expect.any(Number),
      credential: suite.runtime.seed.username,
      dispensary_id: suite.runtime.seed.dispensaryId,
      url: URL_A,
      events: ['item.upserted', 'item.removed'],
      form: 'b',
      enabled: true,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      failing_since: null,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    const read = await suite.admin('GET', `/webhooks/${created.id}`);
    expect(read.statusCode).toBe(200);
    const { secret: _secret, ...rest } = created;
    expect(read.json()).toEqual(rest);
    expect((await suite.admin('GET', '/webhooks')).json()).toEqual([rest]);
  });

  it('the secret is stored encrypted, under a 0600 key file beside the SQLite database; never audit-logged', async () => {
    const created = (await subscribe()).json();
    secrets.push(created.secret);
    const file = readFileSync(suite.runtime.database).toString('latin1');
    expect(file.includes(created.secret)).toBe(false);
    expect(file.includes(created.secret.slice(6))).toBe(false);
    expect(statSync(`${suite.runtime.database}.webhook-key`).mode & 0o777).toBe(0o600);
    const audit = await auditLog(suite.runtime);
    expect(audit.map((entry) => entry.action)).toContain('webhook.create');
    expectNoSecrets(JSON.stringify(audit), [created.secret, created.secret.slice(6)]);
  });

  it('patch url, events and enabled; rotate-secret gives a new secret; delete', async () => {
    const created = (await subscribe()).json();
    secrets.push(created.secret);
    const patched = await suite.admin('PATCH', `/webhooks/${created.id}`, {
      url: 'https://hooks.example.com/other',
      events: ['store.updated'],
      enabled: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      url: 'https://hooks.example.com/other',
      events: ['store.updated'],
      enabled: false,
    });
    const rotated = await suite.admin('POST', `/webhooks/${created.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    secrets.push(rotated.json().secret);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(created.secret);
    expect((await suite.admin('GET', `/webhooks/${created.id}/deliveries`)).json()).toEqual([]);
    expect((await suite.admin('DELETE', `/webhooks/${created.id}`)).statusCode).toBe(204);
    expectError(await suite.admin('GET', `/webhooks/${created.id}`), 404, 'not_found');
    const actions = (await auditLog(suite.runtime)).map((entry) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining(['webhook.update', 'webhook.rotate_secret', 'webhook.remove']),
    );
  });

  it('form: the item shape deliveries carry, chosen at creation and changed by PATCH (audit-logged)', async () => {
    const created = (await subscribe({ form: 'v1' })).json();
    secrets.push(created.secret);
    expect(created.form).toBe('v1');
    const patched = await suite.admin('PATCH', `/webhooks/${created.id}`, { form: 'a' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().form).toBe('a');
    expect((await suite.admin('GET', `/webhooks/${created.id}`)).json().form).toBe('a');
    const audit = await auditLog(suite.runtime);
    expect(audit.some((entry) => entry.action === 'webhook.update' && entry.detail.form === 'a')).toBe(true);
    const wrong = expectError(
      remember(await suite.admin('PATCH', `/webhooks/${created.id}`, { form: 'c' })),
      400,
      'invalid_request',
    );
    expect(wrong.message).toContain('form');
  });

  it('removing the dispensary removes its webhooks', async () => {
    const shop = (await suite.admin('POST', '/dispensaries', { name: 'Closing Shop' })).json();
    secrets.push(shop.token);
    const hook = (await subscribe({ dispensary_id: shop.id })).json();
    secrets.push(hook.secret);
    expect((await suite.admin('DELETE', `/dispensaries/${shop.id}`)).statusCode).toBe(204);
    expectError(await suite.admin('GET', `/webhooks/${hook.id}`), 404, 'not_found');
  });

  describe('refusals: a clear 4xx, nothing written', () => {
    it.each([
      [
        'http:// (without --webhook-allow-private)',
        { url: 'http://hooks.example.com/menu' },
        400,
        'https://',
      ],
      ['a loopback address', { url: 'https://127.0.0.1/hook' }, 400, 'loopback'],
      ['the metadata address', { url: 'https://169.254.169.254/latest/meta-data' }, 400, 'metadata'],
      ['an IPv4-mapped loopback', { url: 'https://[::ffff:127.0.0.1]/hook' }, 400, 'loopback'],
      ['a private IPv6 address', { url: 'https://[fd00:ec2::254]/hook' }, 400, 'private'],
      ['a URL with a password', { url: 'https://user:pw@hooks.example.com/' }, 400, 'password'],
      ['not a URL', { url: 'hooks' }, 400, 'absolute URL'],
      ['an unknown event', { events: ['item.deleted'] }, 400, 'events'],
      ['an unknown form', { form: 'c' }, 400, 'form'],
      ['an unknown credential', { credential: 'nobody' }, 404, 'credential list'],
      ['an unknown dispensary', { dispensary_id: 999_999 }, 404, 'dispensary list'],
    ])('%s', async (_label, body, status, words) => {
      const before = await ids();
      const response = remember(await subscribe(body));
      expect(response.statusCode, response.body).toBe(status);
      expect(response.json().error.message).toContain(words);
      expect(await ids()).toEqual(before);
    });

    it('a credential that may not read the dispensary: 422', async () => {
      await suite.runtime.services.credentials.issue('only-other', undefined, {
        dispensaryIds: [suite.other.id],
      });
      const error = expectError(
        remember(await subscribe({ credential: 'only-other' })),
        422,
        'unprocessable',
      );
      expect(error.message).toContain('may not read');
    });

    it('a delivery that does not exist: 404 with what to do', async () => {
      const created = (await subscribe()).json();
      secrets.push(created.secret);
      const error = expectError(
        remember(await suite.admin('POST', `/webhooks/${created.id}/deliveries/msg_nope/retry`)),
        404,
        'not_found',
      );
      expect(error.message).toContain(`menu-api webhook deliveries ${created.id}`);
    });
  });

  describe('a dispensary-scoped key sees and touches only its dispensary’s webhooks', () => {
    it('creates for its own dispensary, not for another (403)', async () => {
      const own = await subscribe({}, suite.scoped);
      expect(own.statusCode, own.body).toBe(201);
      secrets.push(own.json().secret);
      await suite.runtime.services.credentials.issue('both-shops');
      const elsewhere = remember(
        await subscribe({ credential: 'both-shops', dispensary_id: suite.other.id }, suite.scoped),
      );
      expectError(elsewhere, 403, 'forbidden');
    });

    it('lists only its own; another dispensary’s webhook is 404 to it, for every route', async () => {
      await suite.runtime.services.credentials.issue('other-reader', undefined, {
        dispensaryIds: [suite.other.id],
      });
      const theirs = (await subscribe({ credential: 'other-reader', dispensary_id: suite.other.id })).json();
      secrets.push(theirs.secret);
      const listed = (await suite.scoped('GET', '/webhooks')).json() as { dispensary_id: number }[];
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((hook) => hook.dispensary_id === suite.runtime.seed.dispensaryId)).toBe(true);
      for (const [method, path, body] of [
        ['GET', `/webhooks/${theirs.id}`, undefined],
        ['PATCH', `/webhooks/${theirs.id}`, { enabled: false }],
        ['DELETE', `/webhooks/${theirs.id}`, undefined],
        ['POST', `/webhooks/${theirs.id}/rotate-secret`, undefined],
        ['GET', `/webhooks/${theirs.id}/deliveries`, undefined],
        ['POST', `/webhooks/${theirs.id}/deliveries/msg_x/retry`, undefined],
      ] as const) {
        expectError(remember(await suite.scoped(method, path, body)), 404, 'not_found');
      }
      expect((await suite.admin('GET', `/webhooks/${theirs.id}`)).json().enabled).toBe(true);
    });
  });

  describeAdminKeyRefusals({
    watch,
    context: () => ({ runtime: suite.runtime, key: suite.adminSecret, token: suite.runtime.seed.token }),
    routes: () => [
      [
        'POST',
        '/webhooks',
        {
          credential: suite.runtime.seed.username,
          dispensary_id: suite.runtime.seed.dispensaryId,
          url: URL_A,
        },
      ],
      ['GET', '/webhooks', undefined],
      ['GET', '/webhooks/1', undefined],
      ['PATCH', '/webhooks/1', { enabled: false }],
      ['DELETE', '/webhooks/1', undefined],
      ['POST', '/webhooks/1/rotate-secret', undefined],
      ['GET', '/webhooks/1/deliveries', undefined],
      ['POST', '/webhooks/1/deliveries/msg_x/retry', undefined],
    ],
    proof: () => ['GET', '/webhooks', undefined],
    state: async () => (await suite.admin('GET', '/webhooks')).json(),
  });

  it('no secret in the audit log or in any refusal', async () => {
    await watch.expectNoneLeaked(suite.runtime, 5);
  });
});
