import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ScryptCost } from '../../../src/auth/password.js';
import type { ServerConfig } from '../../../src/config.js';
import { CLI_OPERATOR } from '../../../src/services/accounts.js';
import { expectNoSecrets } from '../../helpers/admin.js';
import { assertBuilt, commandJson, startServe } from '../../helpers/cli.js';
import { listeningForAccounts, PASSWORD, sessionOf } from '../../helpers/console-http.js';
import { send } from '../../helpers/process.js';
import { onPostgres, temporaryDirectory } from '../../helpers/runtime.js';
import { until } from '../../helpers/wait.js';

assertBuilt();

/**
 * Accounts' console sessions over real HTTP: an unknown email answered as a wrong password (same
 * answer, same work), failed sign-ins throttled per account and per address, a new session id at every
 * sign-in, CSRF on the account routes, sign-out everywhere, a change of one's own password (which ends
 * the other sessions), the idle and absolute timeouts, and no
 * password or link token in the server's log or the audit log. It runs on both databases (vitest.config.ts).
 */

/** A runtime listening on loopback (see listeningForAccounts), and sign-in as the console page sends it. */
const TIMED_SCRYPT: ScryptCost = { N: 2 ** 13, r: 8, p: 1 };

async function listening(config: Partial<ServerConfig> = {}, scryptCost?: ScryptCost) {
  const server = await listeningForAccounts(config, scryptCost);
  const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
    server.call('POST', '/session', undefined, { email, password }, headers);
  /** Two new accounts: two sessions of `who`, then one of `bystander` (which a change of `who`'s leaves). */
  const twoSessionsAndABystander = async (who: string, bystander: string) => {
    await server.account(who);
    await server.account(bystander);
    return [
      sessionOf(await signIn(who, PASSWORD)),
      sessionOf(await signIn(who, PASSWORD)),
      sessionOf(await signIn(bystander, PASSWORD)),
    ] as const;
  };
  return { ...server, signIn, twoSessionsAndABystander };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('accounts signing in to the console', () => {
  let server: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    server = await listening();
  });
  afterAll(() => server.runtime.close());

  // Its subject is the time scrypt takes, not storage: on SQLite only (it costs seconds).
  it.skipIf(onPostgres)(
    'answers an unknown email, an unaccepted invitation and a wrong password alike, after the same work',
    async () => {
      // A scrypt cost of about 20 ms a hash (the default takes ten times that): enough that a skipped
      // hash would show in the time taken, against the milliseconds an account lookup takes.
      const costly = await listening({}, TIMED_SCRYPT);
      try {
        await costly.account('known@example.com');
        await costly.runtime.services.accounts.invite(
          {
            email: 'invited@example.com',
            role: 'manager',
            dispensaryIds: [costly.runtime.seed.dispensaryId],
          },
          CLI_OPERATOR,
          costly.base,
        );
        const answers = await Promise.all([
          costly.signIn('nobody@example.com', PASSWORD),
          costly.signIn('invited@example.com', PASSWORD),
          costly.signIn('known@example.com', 'a wrong horse battery'),
        ]);
        for (const answer of answers) expect(answer.status).toBe(401);
        // The same code and message (each error names its own request id).
        const said = answers.map((answer) => {
          const { code, message } = JSON.parse(answer.body).error;
          return JSON.stringify({ code, message });
        });
        expect(new Set(said).size).toBe(1);
        // Timing, loosely: medians of 5 tries each, interleaved; the decoy hash makes an
        // unknown email cost what a wrong password does (without it, it would take a small fraction).
        const timed = async (email: string, password: string) => {
          const started = performance.now();
          expect((await costly.signIn(email, password)).status).toBe(401);
          return performance.now() - started;
        };
        const unknown: number[] = [];
        const wrong: number[] = [];
        for (let round = 0; round < 5; round += 1) {
          unknown.push(await timed(`nobody${round}@example.com`, PASSWORD));
          wrong.push(await timed('known@example.com', `a wrong horse battery ${round}`));
        }
        expect(median(unknown)).toBeGreaterThan(median(wrong) / 3);
        expect(median(wrong)).toBeGreaterThan(median(unknown) / 3);
      } finally {
        await costly.runtime.close();
      }
    },
    60_000,
  );

  it('throttles failed sign-ins per account: 429 after the limit, even with the right password, others unaffected', async () => {
    const guarded = await listening({
      loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 0, perUsername: 3 },
    });
    try {
      await guarded.account('target@example.com');
      await guarded.account('bystander@example.com');
      for (let attempt = 0; attempt < 3; attempt += 1) {
        expect((await guarded.signIn('target@example.com', `wrong password ${attempt}`)).status).toBe(401);
      }
      const locked = await guarded.signIn('target@example.com', PASSWORD);
      expect(locked.status, locked.body).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(locked.headers['set-cookie']).toBeUndefined();
      expect((await guarded.signIn('bystander@example.com', PASSWORD)).status).toBe(201);
    } finally {
      await guarded.runtime.close();
    }
  });

  it('throttles failed sign-ins per address, whatever the emails tried', async () => {
    const guarded = await listening({
      loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 3, perUsername: 0 },
    });
    try {
      await guarded.account('real@example.com');
      for (let attempt = 0; attempt < 3; attempt += 1) {
        expect((await guarded.signIn(`guess${attempt}@example.com`, PASSWORD)).status).toBe(401);
      }
      const locked = await guarded.signIn('real@example.com', PASSWORD);
      expect(locked.status, locked.body).toBe(429);
    } finally {
      await guarded.runtime.close();
    }
  });

  it('gives a new session id at every sign-in: a cookie planted before is not the one after, and is worth nothing', async () => {
    await server.account('fixed@example.com');
    const planted = 'menu_console_session=planted-by-an-attacker-0123456789abcdef';
    const first = sessionOf(await server.signIn('fixed@example.com', PASSWORD, { cookie: planted }));
    expect(first.cookie).not.toBe(planted);
    expect(first.cookie).toMatch(/^menu_console_session=[A-Za-z0-9_-]{40,}$/);
    expect((await server.call('GET', '/session', { cookie: planted })).status).toBe(401);
    // Signing in again with the first session's cookie gives yet another id; both are sessions.
    const second = sessionOf(await server.signIn('fixed@example.com', PASSWORD, { cookie: first.cookie }));
    expect(second.cookie).not.toBe(first.cookie);
    expect((await server.call('GET', '/session', { cookie: second.cookie })).status).toBe(200);
  });

  it('refuses a write to the account routes without the CSRF token or from another origin (403), and changes nothing', async () => {
    await server.account('csrf-operator@example.com', 'operator');
    const target = await server.account('csrf-staff@example.com', 'staff');
    const { cookie, csrf } = sessionOf(await server.signIn('csrf-operator@example.com', PASSWORD));
    const writes: [string, string, unknown][] = [
      ['POST', '/accounts', { email: 'new@example.com', role: 'operator' }],
      ['PATCH', `/accounts/${target.id}`, { role: 'manager' }],
      ['POST', `/accounts/${target.id}/reset-password`, undefined],
      ['DELETE', `/accounts/${target.id}`, undefined],
      ['DELETE', '/sessions', undefined],
      ['POST', '/account/password', { current_password: PASSWORD, new_password: `${PASSWORD} 2` }],
    ];
    const before = JSON.stringify(await server.runtime.services.accounts.list(CLI_OPERATOR));
    for (const [method, path, body] of writes) {
      const without = await server.call(method, path, { cookie }, body);
      expect(without.status, `${method} ${path} without the token: ${without.body}`).toBe(403);
      const foreign = await server.call(method, path, { cookie, csrf }, body, {
        origin: 'https://evil.example',
      });
      expect(foreign.status, `${method} ${path} from another origin: ${foreign.body}`).toBe(403);
      const noOrigin = await server.call(method, path, { cookie, csrf }, body, { origin: '' });
      expect(noOrigin.status, `${method} ${path} without Origin: ${noOrigin.body}`).toBe(403);
    }
    expect(JSON.stringify(await server.runtime.services.accounts.list(CLI_OPERATOR))).toBe(before);
    expect((await server.call('GET', '/session', { cookie })).status).toBe(200);
    // The same write with both is accepted.
    const invited = await server.call(
      'POST',
      '/accounts',
      { cookie, csrf },
      {
        email: 'new@example.com',
        role: 'operator',
      },
    );
    expect(invited.status, invited.body).toBe(201);
    // The routes without a session refuse another site's page too.
    for (const [path, body] of [
      ['/session', { email: 'csrf-operator@example.com', password: PASSWORD }],
      ['/account-link', { token: 'x'.repeat(43) }],
      ['/account-link/accept', { token: 'x'.repeat(43), password: PASSWORD }],
    ] as const) {
      const foreign = await server.call('POST', path, undefined, body, { origin: 'https://evil.example' });
      expect(foreign.status, `POST ${path}: ${foreign.body}`).toBe(403);
    }
  });

  it('changes the password with the current one: the other sessions end, this one stays, and the audit log keeps no secret', async () => {
    const [here, elsewhere, other] = await server.twoSessionsAndABystander(
      'changer@example.com',
      'bystander2@example.com',
    );
    // A reset link issued before the change stops working with it.
    const reset = await server.runtime.services.accounts.resetPassword(
      'changer@example.com',
      CLI_OPERATOR,
      server.base,
    );
    const chosen = 'a brand new horse battery staple';
    const changed = await server.call('POST', '/account/password', here, {
      current_password: PASSWORD,
      new_password: chosen,
    });
    expect(changed.status, changed.body).toBe(200);
    expect(JSON.parse(changed.body)).toEqual({ ended_sessions: 1 });
    expect((await server.call('GET', '/session', here)).status).toBe(200);
    expect((await server.call('GET', '/session', elsewhere)).status).toBe(401);
    expect((await server.call('GET', '/session', other)).status).toBe(200);
    expect((await server.signIn('changer@example.com', PASSWORD)).status).toBe(401);
    expect((await server.signIn('changer@example.com', chosen)).status).toBe(201);
    await expect(
      server.runtime.services.accounts.describeLink(new URL(reset.url).hash.slice(1)),
    ).rejects.toThrow(/unknown, already used or expired/);
    const audit = await server.runtime.services.store.audit.list({
      actor: 'account:changer@example.com',
      limit: 5,
    });
    expect(audit.find((entry) => entry.action === 'account.change_password')).toMatchObject({
      action: 'account.change_password',
      detail: { email: 'changer@example.com', ended_sessions: 1 },
    });
    expectNoSecrets(JSON.stringify(audit), [PASSWORD, chosen]);
  });

  it('refuses a wrong current password (403) or a new one outside the rules (400), changing nothing, and throttles wrong ones per account', async () => {
    const guarded = await listening({
      loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 0, perUsername: 3 },
    });
    try {
      await guarded.account('typo@example.com');
      const session = sessionOf(await guarded.signIn('typo@example.com', PASSWORD));
      const change = (current: string, next: string) =>
        guarded.call('POST', '/account/password', session, { current_password: current, new_password: next });
      const short = await change(PASSWORD, 'too short');
      expect(short.status, short.body).toBe(400);
      expect(JSON.parse(short.body).error.message).toMatch(/12 to 200 characters/);
      const same = await change(PASSWORD, PASSWORD);
      expect(same.status, same.body).toBe(400);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const wrong = await change(`not the password ${attempt}`, 'a brand new horse battery');
        expect(wrong.status, wrong.body).toBe(403);
        expect(JSON.parse(wrong.body).error.message).toMatch(/not your current password/);
      }
      // The session stays: a typo does not sign the person out.
      expect((await guarded.call('GET', '/session', session)).status).toBe(200);
      // Two wrong current passwords and a wrong sign-in: the account's third failure locks it.
      expect((await guarded.signIn('typo@example.com', 'a wrong password again')).status).toBe(401);
      const locked = await change(PASSWORD, 'a brand new horse battery');
      expect(locked.status, locked.body).toBe(429);
      expect((await guarded.signIn('typo@example.com', PASSWORD)).status).toBe(429);
    } finally {
      await guarded.runtime.close();
    }
  });

  it("signs out everywhere: every session of the account ends, another account's stays", async () => {
    const [laptop, phone, other] = await server.twoSessionsAndABystander(
      'everywhere@example.com',
      'other@example.com',
    );
    const out = await server.call('DELETE', '/sessions', laptop);
    expect(out.status, out.body).toBe(200);
    expect(JSON.parse(out.body)).toEqual({ ended_sessions: 2 });
    expect(String(out.headers['set-cookie'])).toMatch(/^menu_console_session=; Max-Age=0;/);
    expect((await server.call('GET', '/session', { cookie: laptop.cookie })).status).toBe(401);
    expect((await server.call('GET', '/dispensaries', { cookie: phone.cookie })).status).toBe(401);
    expect((await server.call('GET', '/session', { cookie: other.cookie })).status).toBe(200);
  });

  it('ends a session unused for the idle timeout, and any session at its lifetime however used', async () => {
    const timed = await listening({ consoleIdleTimeout: 120, consoleSessionLifetime: 300 });
    // Only the clock is fake (no timer): the session's times are Date's; requests travel as ever.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await timed.account('clock@example.com');
      const start = Date.now();
      const idle = sessionOf(await timed.signIn('clock@example.com', PASSWORD));
      const busy = sessionOf(await timed.signIn('clock@example.com', PASSWORD));
      const status = async (cookie: string, at: number) => {
        vi.setSystemTime(start + at * 1000);
        return (await timed.call('GET', '/session', { cookie })).status;
      };
      // Used every 100 s (each use counts: over a minute apart), the busy one lives on; the idle one,
      // last used at sign-in, ends 120 s after.
      expect(await status(busy.cookie, 100)).toBe(200);
      expect(await status(idle.cookie, 119)).toBe(200);
      expect(await status(busy.cookie, 200)).toBe(200);
      expect(await status(idle.cookie, 240)).toBe(401);
      expect(await status(busy.cookie, 299)).toBe(200);
      // 300 s after sign-in: over, though used a moment ago.
      expect(await status(busy.cookie, 301)).toBe(401);
    } finally {
      vi.useRealTimers();
      await timed.runtime.close();
    }
  });
});

// A server process over a SQLite file: its subject is the logs, which no database changes.
describe.skipIf(onPostgres)('secrets of accounts in the logs', () => {
  const directory = temporaryDirectory();
  afterAll(() => directory.remove());

  it('writes neither the password nor the link token to the request log or the audit log', async () => {
    const database = join(directory.path, 'menu.db');
    await commandJson(database, ['dispensary', 'create', '--name', 'Logged']);
    const server = await startServe(database, ['--log-level', 'debug', '--login-failures', '0,0,0']);
    try {
      const origin = { origin: server.url, 'content-type': 'application/json' };
      const issued = await commandJson<{ link: string }>(database, [
        'account',
        'invite',
        '--email',
        'logged@example.com',
        '--role',
        'operator',
        '--public-url',
        server.url,
      ]);
      const token = new URL(issued.link).hash.slice(1);
      const post = (path: string, body: unknown) =>
        send(`${server.url}/admin/v1${path}`, {
          method: 'POST',
          headers: origin,
          body: JSON.stringify(body),
        });
      expect((await post('/account-link', { token })).status).toBe(200);
      expect((await post('/account-link/accept', { token, password: PASSWORD })).status).toBe(201);
      expect((await post('/session', { email: 'logged@example.com', password: PASSWORD })).status).toBe(201);
      const wrong = 'a wrong horse battery staple';
      expect((await post('/session', { email: 'logged@example.com', password: wrong })).status).toBe(401);
      // A used token, sent again, is refused: its refusal is logged, not the token.
      expect((await post('/account-link/accept', { token, password: PASSWORD })).status).toBe(404);
      // The request log is on: each of those requests is in it, once its lines are written out.
      const logged = () => server.output().match(/"msg":"request"/g)?.length ?? 0;
      await until(() => logged() >= 5, 10_000, 'the five requests in the request log');
      const output = server.output();
      expectNoSecrets(output, [PASSWORD, wrong, token]);
      const key = (
        await commandJson<{ key: string }>(database, [
          'admin-key',
          'create',
          '--scope',
          'all',
          '--name',
          'auditor',
        ])
      ).key;
      const audit = await send(`${server.url}/admin/v1/audit`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(audit.status).toBe(200);
      expect(audit.body).toContain('logged@example.com');
      expectNoSecrets(audit.body, [PASSWORD, wrong, token]);
    } finally {
      await server.stop();
    }
  }, 90_000);
});
