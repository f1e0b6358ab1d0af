import { describe, expect } from 'vitest';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it } from './fixtures.js';

describe(`store.consoleSessions and store.usage on ${DATABASE_KIND}`, () => {
  it('keeps a session by digest, renews its use, and removes it or the ended ones', async ({ store }) => {
    const key = await store.adminKeys.create('ops', 'all', 'digest-ops');
    const session = {
      idDigest: 'digest-a',
      adminKeyId: key.id,
      accountId: null,
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

  it('keeps accounts with one-time links used once, and ends their sessions with them', async ({ store }) => {
    const at = '2026-01-01T10:00:00.000Z';
    const link = { digest: 'link-1', purpose: 'invite' as const, expiresAt: '2026-01-08T10:00:00.000Z' };
    const invited = await store.accounts.invite(
      'ana@example.com',
      { role: 'staff', dispensaryIds: [1] },
      link,
      'cli',
    );
    expect(invited).toMatchObject({
      email: 'ana@example.com',
      role: 'staff',
      dispensaryIds: [1],
      active: false,
    });
    await expect(
      store.accounts.invite(
        'ana@example.com',
        { role: 'operator', dispensaryIds: [] },
        { ...link, digest: 'x' },
      ),
    ).rejects.toThrow(/exists/);
    expect(await store.accounts.linkAccount('link-1', '2026-01-08T10:00:00.000Z')).toBeUndefined();
    expect(await store.accounts.linkAccount('link-1', at)).toMatchObject({
      id: invited.id,
      purpose: 'invite',
    });
    const session = {
      idDigest: 'session-of-ana',
      adminKeyId: null,
      accountId: invited.id,
      createdAt: at,
      lastSeenAt: at,
      expiresAt: '2026-01-01T22:00:00.000Z',
    };
    await store.consoleSessions.create(session);
    expect(await store.consoleSessions.find('session-of-ana')).toEqual(session);
    const redeemed = await store.accounts.redeemLink('link-1', at, 'scrypt$digest');
    expect(redeemed).toMatchObject({ id: invited.id, active: true });
    expect(await store.accounts.redeemLink('link-1', at, 'scrypt$other')).toBeUndefined();
    expect(await store.consoleSessions.find('session-of-ana')).toBeUndefined();
    expect(await store.accounts.findByEmail('ana@example.com')).toMatchObject({
      passwordDigest: 'scrypt$digest',
    });
    expect(
      await store.accounts.change(invited.id, { role: 'manager', dispensaryIds: [1, 2] }, 'cli'),
    ).toMatchObject({
      role: 'manager',
      dispensaryIds: [1, 2],
    });
    // A change of the password from a session: only from the stored digest, ending the others.
    await store.consoleSessions.create(session);
    await store.consoleSessions.create({ ...session, idDigest: 'another-of-ana' });
    expect(
      await store.accounts.changePassword(invited.id, 'scrypt$stale', 'scrypt$new', 'session-of-ana'),
    ).toBeUndefined();
    expect(
      await store.accounts.changePassword(invited.id, 'scrypt$digest', 'scrypt$new', 'session-of-ana'),
    ).toMatchObject({ account: { id: invited.id }, endedSessions: 1 });
    expect(await store.consoleSessions.find('another-of-ana')).toBeUndefined();
    expect(await store.accounts.findByEmail('ana@example.com')).toMatchObject({
      passwordDigest: 'scrypt$new',
    });
    expect(await store.consoleSessions.removeOfAccount(invited.id)).toBe(1);
    expect(
      await store.accounts.replaceLinks(invited.id, { ...link, digest: 'link-2', purpose: 'reset' }),
    ).toBe(true);
    expect(await store.accounts.remove(invited.id)).toBe(true);
    expect(await store.accounts.remove(invited.id)).toBe(false);
    expect(await store.accounts.linkAccount('link-2', at)).toBeUndefined();
    const actions = (await store.audit.list({ limit: 10 })).map((entry) => [entry.actor, entry.action]);
    expect(actions).toEqual([
      ['cli', 'account.invite'],
      ['account:ana@example.com', 'account.accept_invitation'],
      ['cli', 'account.change'],
      ['account:ana@example.com', 'account.change_password'],
      ['cli', 'account.reset_password'],
      ['cli', 'account.remove'],
    ]);
    expect(JSON.stringify(await store.audit.list({ limit: 10 }))).not.toMatch(/scrypt|link-/);
  });

  it('binds a single sign-on identity once: it accepts an invitation, and another identity is refused', async ({
    store,
  }) => {
    const link = { digest: 'link-sso', purpose: 'invite' as const, expiresAt: '2099-01-01T00:00:00.000Z' };
    const invited = await store.accounts.invite(
      'sso@example.com',
      { role: 'staff', dispensaryIds: [] },
      link,
    );
    expect(invited.active).toBe(false);
    const signedIn = await store.accounts.signedInWithSso(invited.id, 'https://idp.example one');
    expect(signedIn).toMatchObject({ email: 'sso@example.com', active: true });
    expect(await store.accounts.linkAccount('link-sso', '2026-01-01T00:00:00.000Z')).toBeUndefined();
    expect(await store.accounts.findBySsoIdentity('https://idp.example one')).toMatchObject({
      id: invited.id,
    });
    expect(await store.accounts.findByEmail('sso@example.com')).toMatchObject({
      ssoIdentity: 'https://idp.example one',
      passwordDigest: null,
    });
    expect(await store.accounts.signedInWithSso(invited.id, 'https://idp.example two')).toBeUndefined();
    expect(await store.accounts.signedInWithSso(invited.id, 'https://idp.example one')).toMatchObject({
      id: invited.id,
    });
    const joined = await store.accounts.joinWithSso(
      'new@example.com',
      { role: 'staff', dispensaryIds: [] },
      'https://idp.example three',
    );
    expect(joined).toMatchObject({ role: 'staff', dispensaryIds: [], active: true });
    await expect(
      store.accounts.joinWithSso(
        'other@example.com',
        { role: 'staff', dispensaryIds: [] },
        'https://idp.example three',
      ),
    ).rejects.toThrow(/exists/);
    const entries = await store.audit.list({ limit: 10 });
    expect(
      entries.filter((entry) => entry.action === 'account.sso_sign_in').map((entry) => entry.actor),
    ).toEqual(['account:sso@example.com', 'account:sso@example.com', 'account:new@example.com']);
  });

  it('keeps integrators: confirmed once, then approved with a credential reading nothing, or declined', async ({
    store,
  }) => {
    const profile = { name: 'Dana', company: 'Apps', building: 'A kiosk' };
    const confirm = (digest: string) => ({ digest, expiresAt: '2999-01-01T00:00:00.000Z' });
    const dana = await store.integrators.register('dana@example.com', profile, 'scrypt-dana', confirm('c-1'));
    const eli = await store.integrators.register('eli@example.com', profile, 'scrypt-eli', confirm('c-2'));
    expect(dana).toMatchObject({ role: 'integrator', active: false, dispensaryIds: [] });
    await expect(
      store.integrators.register('dana@example.com', profile, 'x', confirm('c-3')),
    ).rejects.toThrow(/exists/);
    // Not waiting yet: nothing to approve.
    expect(
      await store.integrators.approve(dana.id, { username: 'integrator-a', passwordHash: 'h' }),
    ).toBeUndefined();
    expect(await store.integrators.confirm('c-1', '3000-01-01T00:00:00.000Z')).toBeUndefined();
    expect(await store.integrators.confirm('c-1', '2026-01-01T00:00:00.000Z')).toMatchObject({
      status: 'waiting',
    });
    expect(await store.integrators.confirm('c-1', '2026-01-01T00:00:00.000Z')).toBeUndefined();
    const approved = await store.integrators.approve(dana.id, {
      username: 'integrator-a',
      passwordHash: 'h',
    });
    expect(approved).toMatchObject({
      status: 'approved',
      credentialUsername: 'integrator-a',
      email: 'dana@example.com',
    });
    expect((await store.accounts.findByEmail('dana@example.com'))?.passwordDigest).toBe('scrypt-dana');
    expect((await store.credentials.find('integrator-a'))?.dispensaryIds).toEqual([]);
    // The operator's new link for an unconfirmed registration replaces its link alone; a confirmed one gets none.
    expect(
      await store.integrators.renewUnconfirmed('dana@example.com', confirm('c-4'), undefined, 'cli'),
    ).toBeUndefined();
    expect(
      await store.integrators.renewUnconfirmed('eli@example.com', confirm('c-5'), undefined, 'cli'),
    ).toMatchObject({ id: eli.id });
    expect(await store.integrators.confirm('c-2', '2026-01-01T00:00:00.000Z')).toBeUndefined();
    expect(await store.integrators.confirm('c-5', '2026-01-01T00:00:00.000Z')).toMatchObject({
      status: 'waiting',
      name: 'Dana',
    });
    const linked = (await store.audit.list({ limit: 100 })).filter(
      (entry) => entry.action === 'integrator.confirm-link',
    );
    expect(linked.map((entry) => entry.actor)).toEqual(['cli']);
    expect(await store.integrators.decline(eli.id)).toMatchObject({ status: 'declined' });
    expect(await store.integrators.decline(eli.id)).toBeUndefined();
    expect((await store.accounts.findByEmail('eli@example.com'))?.passwordDigest).toBeNull();
    expect((await store.integrators.list()).map((integrator) => integrator.status)).toEqual([
      'approved',
      'declined',
    ]);
    // Removing the account removes its registration.
    await store.accounts.remove(eli.id);
    expect(await store.integrators.get(eli.id)).toBeUndefined();

    // Access to a dispensary: asked once, decided once, then read with a token of its own.
    const shop = await store.dispensaries.create('Shop', 'digest-shop');
    const request = await store.integrators.requestAccess(dana.id, shop.id);
    expect(request).toMatchObject({ status: 'waiting', dispensaryName: 'Shop', hasToken: false });
    await expect(store.integrators.requestAccess(dana.id, shop.id)).rejects.toThrow(/asked/);
    expect(await store.integrators.setAccessToken(request.id, 'digest-own', 'cli')).toBe(false);
    expect(await store.integrators.accessRequests({ dispensaryIds: [] })).toEqual([]);
    expect(await store.integrators.accessRequests({ dispensaryIds: [shop.id] })).toHaveLength(1);
    expect(
      await store.integrators.decideAccess(request.id, 'approved', 'account:m@example.com'),
    ).toMatchObject({
      status: 'approved',
      decidedBy: 'account:m@example.com',
    });
    expect(await store.integrators.decideAccess(request.id, 'approved', 'cli')).toBeUndefined();
    expect((await store.credentials.find('integrator-a'))?.dispensaryIds).toEqual([shop.id]);
    expect(await store.dispensaries.findByTokenDigest('digest-own')).toBeUndefined();
    expect(await store.integrators.setAccessToken(request.id, 'digest-own', 'cli')).toBe(true);
    expect(await store.dispensaries.findByTokenDigest('digest-own')).toMatchObject({ id: shop.id });
    // Withdrawn: the credential stops reading the dispensary, and the token stops working.
    expect(await store.integrators.decideAccess(request.id, 'declined', 'cli')).toMatchObject({
      status: 'declined',
      hasToken: false,
    });
    expect((await store.credentials.find('integrator-a'))?.dispensaryIds).toEqual([]);
    expect(await store.dispensaries.findByTokenDigest('digest-own')).toBeUndefined();
    expect(await store.integrators.setCredentialPassword(dana.id, 'new-hash')).toBe('integrator-a');
    expect((await store.credentials.find('integrator-a'))?.passwordHash).toBe('new-hash');
    await store.dispensaries.remove(shop.id);
    expect(await store.integrators.accessRequests({ accountId: dana.id })).toEqual([]);
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
