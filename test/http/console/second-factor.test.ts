import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../../src/config.js';
import { expectNoSecrets } from '../../helpers/admin.js';
import { listeningForAccounts, PASSWORD, sessionOf } from '../../helpers/console-http.js';

/**
 * One-time codes (TOTP) over real HTTP, with codes made by the same library an authenticator app
 * would use: set up from a session and confirmed with a first code; a password sign-in then waits for
 * a code (no session before it), each code and recovery code works once, wrong codes are throttled
 * per account; with --require-second-factor an account without one sets codes up before its first
 * session; the secret is stored encrypted and never in the audit log.
 */
async function listening(config: Partial<ServerConfig> = {}) {
  const { runtime, base, call, account } = await listeningForAccounts(config);
  const signIn = (email: string) => call('POST', '/session', undefined, { email, password: PASSWORD });
  return { runtime, base, call, account, signIn };
}

/** The code an authenticator app shows for `secret`, `offsetSeconds` from now. */
function codeOf(secret: string, offsetSeconds = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + offsetSeconds * 1000,
  });
}

describe('one-time codes as a second factor', () => {
  let server: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    server = await listening();
  });
  afterAll(() => server.runtime.close());

  /** An account with codes turned on: its secret and recovery codes. */
  const withCodes = async (email: string) => {
    await server.account(email);
    const session = sessionOf(await server.signIn(email));
    const started = await server.call('POST', '/account/totp', session);
    expect(started.status, started.body).toBe(200);
    const { secret, otpauth_uri: uri } = JSON.parse(started.body);
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(uri).toContain(`secret=${secret}`);
    const wrong = await server.call('POST', '/account/totp/confirm', session, { code: '000000' });
    expect(wrong.status, wrong.body).toBe(401);
    const first = codeOf(secret);
    const confirmed = await server.call('POST', '/account/totp/confirm', session, { code: first });
    expect(confirmed.status, confirmed.body).toBe(200);
    const recovery = JSON.parse(confirmed.body).recovery_codes as string[];
    return { secret, recovery, session, first };
  };

  it('sets codes up from a session; a password sign-in then waits for a code, used once', async () => {
    const { secret, recovery, session, first } = await withCodes('tess@example.com');
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    const status = JSON.parse((await server.call('GET', '/account/totp', session)).body);
    expect(status).toEqual({ enabled: true, recovery_codes_left: 10, required: false });

    const waiting = await server.signIn('tess@example.com');
    expect(waiting.status, waiting.body).toBe(202);
    expect(waiting.headers['set-cookie']).toBeUndefined();
    const { second_factor: next, pending_token: token } = JSON.parse(waiting.body);
    expect(next).toBe('totp');
    // The confirming code's step is used up: the same code again is refused.
    const reused = await server.call('POST', '/session/second-factor', undefined, {
      pending_token: token,
      code: first,
    });
    expect(reused.status, reused.body).toBe(401);
    const signedIn = await server.call('POST', '/session/second-factor', undefined, {
      pending_token: token,
      code: codeOf(secret, 30),
    });
    expect(JSON.parse(signedIn.body).account.email).toBe('tess@example.com');
    sessionOf(signedIn);
    // The waiting sign-in ended with its session.
    const again = await server.call('POST', '/session/second-factor', undefined, {
      pending_token: token,
      code: recovery[0],
    });
    expect(again.status, again.body).toBe(401);

    const entries = await server.runtime.services.audit.list({ limit: 100 });
    expect(entries.find((entry) => entry.action === 'account.enable_totp')?.actor).toBe(
      'account:tess@example.com',
    );
    expectNoSecrets(JSON.stringify(entries), [secret, ...recovery]);
    const stored = await server.runtime.services.store.secondFactors.getTotp(
      JSON.parse(signedIn.body).account.id,
    );
    expect(stored?.sealedSecret).not.toContain(secret);
  });

  it('takes each recovery code once instead of a code', async () => {
    const { recovery } = await withCodes('rob@example.com');
    const first = JSON.parse((await server.signIn('rob@example.com')).body).pending_token;
    sessionOf(
      await server.call('POST', '/session/second-factor', undefined, {
        pending_token: first,
        code: recovery[3],
      }),
    );
    const second = JSON.parse((await server.signIn('rob@example.com')).body).pending_token;
    const reused = await server.call('POST', '/session/second-factor', undefined, {
      pending_token: second,
      code: recovery[3],
    });
    expect(reused.status, reused.body).toBe(401);
    const entries = await server.runtime.services.audit.list({ limit: 100 });
    expect(entries.find((entry) => entry.action === 'account.use_recovery_code')?.detail).toMatchObject({
      recovery_codes_left: 9,
    });
  });

  it('turns codes off with a current code', async () => {
    const { secret, session } = await withCodes('olly@example.com');
    const off = await server.call('POST', '/account/totp/disable', session, { code: codeOf(secret, 30) });
    expect(off.status, off.body).toBe(204);
    sessionOf(await server.signIn('olly@example.com'));
  });

  it('throttles wrong codes per account: 429 past the limit', async () => {
    const guarded = await listening({
      loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 0, perUsername: 3 },
    });
    const previous = server;
    server = guarded;
    try {
      await withCodes('gus@example.com'); // one wrong code while confirming
      const token = JSON.parse((await guarded.signIn('gus@example.com')).body).pending_token;
      const wrong = () =>
        guarded.call('POST', '/session/second-factor', undefined, { pending_token: token, code: '123456' });
      expect((await wrong()).status).toBe(401);
      expect((await wrong()).status).toBe(401);
      const locked = await wrong();
      expect(locked.status, locked.body).toBe(429);
    } finally {
      server = previous;
      await guarded.runtime.close();
    }
  });

  it('with --require-second-factor, makes an account without one set codes up before its first session', async () => {
    const strict = await listening({ requireSecondFactor: true });
    try {
      await strict.account('new@example.com');
      const waiting = await strict.signIn('new@example.com');
      expect(waiting.status, waiting.body).toBe(202);
      const { second_factor: next, pending_token: token } = JSON.parse(waiting.body);
      expect(next).toBe('enroll');
      const enrolment = await strict.call('POST', '/session/second-factor/enroll', undefined, {
        pending_token: token,
      });
      expect(enrolment.status, enrolment.body).toBe(200);
      const { secret } = JSON.parse(enrolment.body);
      const done = await strict.call('POST', '/session/second-factor/enroll/confirm', undefined, {
        pending_token: token,
        code: codeOf(secret),
      });
      const session = sessionOf(done);
      expect(JSON.parse(done.body).recovery_codes).toHaveLength(10);
      expect(JSON.parse((await strict.call('GET', '/account/totp', session)).body).required).toBe(true);
      // From now on the account is asked for a code.
      expect(JSON.parse((await strict.signIn('new@example.com')).body).second_factor).toBe('totp');
    } finally {
      await strict.runtime.close();
    }
  });
});
