import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerConfig } from '../../../src/config.js';
import { CHALLENGE_LIFETIME_MS } from '../../../src/services/passkeys.js';
import { listeningForAccounts, PASSWORD, type Session, sessionOf } from '../../helpers/console-http.js';
import { SoftAuthenticator } from '../../helpers/passkey-authenticator.js';

/**
 * Passkeys over real HTTP, with a software authenticator signing real P-256 signatures: registered
 * from an account's session, signing in alone; each challenge works once and expires; a signature for
 * another origin, a removed passkey or a replayed answer is refused and counted as a failed login; an
 * admin key's session has no passkeys; the audit log names the person and never key material.
 */
async function listening(config: Partial<ServerConfig> = {}) {
  const { runtime, base, call, account: invited } = await listeningForAccounts(config);
  const account = async (email: string) => {
    await invited(email);
    return sessionOf(await call('POST', '/session', undefined, { email, password: PASSWORD }));
  };
  /** Registers a new software passkey for the session's account. */
  const register = async (session: Session, name = 'Laptop', origin = base) => {
    const authenticator = new SoftAuthenticator(origin);
    const options = JSON.parse((await call('POST', '/account/passkeys/options', session)).body);
    const answer = authenticator.register(options);
    const added = await call('POST', '/account/passkeys', session, { name, response: answer });
    return { authenticator, added, answer };
  };
  const signInOptions = async () => JSON.parse((await call('POST', '/session/passkey/options')).body);
  const signIn = (response: unknown) => call('POST', '/session/passkey', undefined, { response });
  return { runtime, base, call, account, register, signInOptions, signIn };
}

describe('passkeys of console accounts', () => {
  let server: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    server = await listening();
  });
  afterAll(() => server.runtime.close());

  it('registers a passkey from a session, lists it, and signs in with it alone', async () => {
    const session = await server.account('pat@example.com');
    const { authenticator, added, answer } = await server.register(session, 'Work laptop');
    expect(added.status, added.body).toBe(201);
    expect(JSON.parse(added.body)).toMatchObject({ name: 'Work laptop', last_used_at: null });

    const signedIn = await server.signIn(authenticator.authenticate(await server.signInOptions()));
    const fresh = sessionOf(signedIn);
    expect(fresh.cookie).not.toBe(session.cookie);
    expect(JSON.parse(signedIn.body).account.email).toBe('pat@example.com');
    const listed = JSON.parse((await server.call('GET', '/account/passkeys', fresh)).body);
    expect(listed).toHaveLength(1);
    expect(listed[0].last_used_at).not.toBeNull();

    const entries = await server.runtime.services.audit.list({ limit: 100 });
    const entry = entries.find((each) => each.action === 'account.add_passkey');
    expect(entry?.actor).toBe('account:pat@example.com');
    const stored = await server.runtime.services.store.passkeys.list(JSON.parse(signedIn.body).account.id);
    expect(stored).toHaveLength(1);
    // Neither the public key nor the authenticator's answer is in the audit log.
    expect(JSON.stringify(entries)).not.toContain(stored[0]!.publicKey);
    expect(JSON.stringify(entries)).not.toContain(answer.response.attestationObject.slice(0, 40));
  });

  it('uses each challenge once: a replayed sign-in or registration answer is refused', async () => {
    const session = await server.account('ray@example.com');
    const { authenticator, answer } = await server.register(session);
    const again = await server.call('POST', '/account/passkeys', session, {
      name: 'Again',
      response: answer,
    });
    expect(again.status, again.body).toBe(400);
    expect(JSON.parse(again.body).error.message).toContain('already used or expired');

    const signature = authenticator.authenticate(await server.signInOptions());
    sessionOf(await server.signIn(signature));
    const replayed = await server.signIn(signature);
    expect(replayed.status, replayed.body).toBe(401);
    expect(replayed.headers['set-cookie']).toBeUndefined();
  });

  it('lets a challenge expire after 5 minutes', async () => {
    const session = await server.account('eve@example.com');
    const { authenticator } = await server.register(session);
    const options = await server.signInOptions();
    vi.useFakeTimers({ now: Date.now() + CHALLENGE_LIFETIME_MS + 1000, toFake: ['Date'] });
    try {
      const late = await server.signIn(authenticator.authenticate(options));
      expect(late.status, late.body).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a signature made for another origin, and a removed passkey', async () => {
    const session = await server.account('kim@example.com');
    const { authenticator, added } = await server.register(session);
    const options = await server.signInOptions();
    const phished = await server.signIn(authenticator.authenticate(options, 'https://evil.example'));
    expect(phished.status, phished.body).toBe(401);

    const id = JSON.parse(added.body).id;
    expect((await server.call('DELETE', `/account/passkeys/${id}`, session)).status).toBe(204);
    const removed = await server.signIn(authenticator.authenticate(await server.signInOptions()));
    expect(removed.status, removed.body).toBe(401);
    const entries = await server.runtime.services.audit.list({ limit: 100 });
    expect(entries.find((entry) => entry.action === 'account.remove_passkey')?.actor).toBe(
      'account:kim@example.com',
    );
  });

  it('gives an admin key no passkeys, and nobody another account’s', async () => {
    const created = await server.runtime.services.adminKeys.create('passkey-test', 'all');
    const keySession = sessionOf(await server.call('POST', '/session', undefined, { key: created.key }));
    const refused = await server.call('POST', '/account/passkeys/options', keySession);
    expect(refused.status, refused.body).toBe(403);
    expect(JSON.parse(refused.body).error.message).toContain('Passkeys belong to accounts');

    const owner = await server.account('own@example.com');
    const { added } = await server.register(owner);
    const other = await server.account('other@example.com');
    const id = JSON.parse(added.body).id;
    expect((await server.call('DELETE', `/account/passkeys/${id}`, other)).status).toBe(404);
    expect(JSON.parse((await server.call('GET', '/account/passkeys', other)).body)).toEqual([]);
  });

  it('counts failed passkey sign-ins in the login guard: 429 past the limit', async () => {
    const guarded = await listening({
      loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 2, perUsername: 0 },
    });
    try {
      const stranger = new SoftAuthenticator(guarded.base);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        expect((await guarded.signIn(stranger.authenticate(await guarded.signInOptions()))).status).toBe(401);
      }
      const locked = await guarded.signIn(stranger.authenticate(await guarded.signInOptions()));
      expect(locked.status, locked.body).toBe(429);
    } finally {
      await guarded.runtime.close();
    }
  });

  it('takes the relying party from --public-url', async () => {
    const public_ = await listening({ publicUrl: 'https://menu.example.com/console' });
    try {
      const session = await public_.account('rp@example.com');
      const options = JSON.parse((await public_.call('POST', '/account/passkeys/options', session)).body);
      expect(options.rp.id).toBe('menu.example.com');
      const answer = new SoftAuthenticator('https://menu.example.com').register(options);
      const added = await public_.call('POST', '/account/passkeys', session, {
        name: 'Phone',
        response: answer,
      });
      expect(added.status, added.body).toBe(201);
    } finally {
      await public_.runtime.close();
    }
  });
});
