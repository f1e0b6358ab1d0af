import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../../src/config.js';
import { accountPrincipal } from '../../../src/domain/permissions.js';
import { CLI_OPERATOR } from '../../../src/services/accounts.js';
import { UNLIMITED } from '../../helpers/admin.js';
import { loopbackProvider, OIDC_CLIENT } from '../../helpers/oidc-provider.js';
import { type TestRuntime, testRuntime } from '../../helpers/runtime.js';

/**
 * Single sign-on to the console against a real OpenID provider (oidc-provider on a loopback port),
 * over real HTTP: the redirects driven as a browser would, with a cookie jar, through the provider's
 * own login form. An invited email signs in (and is then known by its identity), an allowed domain
 * joins as staff of no dispensary; an unknown or unverified email, the provider's own error and a
 * callback whose state is not this browser's are refused by sending the browser to the console's
 * sign-in page with the problem's name, and count as failed logins of the address in the login guard.
 */

/** Cookies per origin, as a browser keeps them (paths and expiry aside: each test's flow is short). */
class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: URL): string {
    return [...(this.byOrigin.get(url.origin) ?? new Map<string, string>())]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  take(url: URL, response: Response): void {
    const cookies = this.byOrigin.get(url.origin) ?? new Map<string, string>();
    this.byOrigin.set(url.origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      if (attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || pair.slice(at + 1) === '') {
        cookies.delete(name);
      } else {
        cookies.set(name, pair.slice(at + 1));
      }
    }
  }
}

interface Step {
  url: URL;
  response: Response;
  body: string;
}

/** One request with the jar's cookies, not following redirects. */
async function visit(jar: CookieJar, url: URL, form?: Record<string, string>): Promise<Step> {
  const response = await fetch(url, {
    redirect: 'manual',
    method: form ? 'POST' : 'GET',
    headers: {
      cookie: jar.header(url),
      ...(form && { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin }),
    },
    ...(form && { body: new URLSearchParams(form).toString() }),
  });
  jar.take(url, response);
  return { url, response, body: await response.text() };
}

/**
 * A test runtime with single sign-on at a provider of its own, listening on loopback, and `signInAs`:
 * from the console's "Sign in with single sign-on" to the provider's login form (signed in as `login`)
 * and back, the answer of our callback. `tamper` may change the callback's address first.
 */
async function listeningWithSso(config: Partial<ServerConfig>) {
  const provider = await loopbackProvider();
  const runtime = await testRuntime({
    config: {
      ...UNLIMITED,
      oidcIssuer: provider.issuer,
      oidcClientId: OIDC_CLIENT.id,
      oidcClientSecret: OIDC_CLIENT.secret,
      ...config,
    },
  });
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
  provider.register(`${base}/admin/v1/session/sso/callback`);
  async function signInAs(login: string, tamper: (callback: URL) => URL = (url) => url): Promise<Step> {
    const jar = new CookieJar();
    let step = await visit(jar, new URL(`${base}/admin/v1/session/sso/sign-in`));
    expect(step.response.status, step.body).toBe(302);
    for (let hops = 0; hops < 10; hops++) {
      const location = step.response.headers.get('location');
      if (location === null) {
        // The provider's login form: any password will do for its development login.
        expect(step.url.origin).toBe(provider.issuer);
        expect(step.body).toContain('name="login"');
        step = await visit(jar, step.url, { prompt: 'login', login, password: 'anything' });
        continue;
      }
      const next = new URL(location, step.url);
      if (next.pathname === '/admin/v1/session/sso/callback') return visit(jar, tamper(next));
      step = await visit(jar, next);
    }
    throw new Error('the sign-in did not come back');
  }
  return {
    provider,
    runtime,
    base,
    signInAs,
    async close() {
      await runtime.close();
      await provider.close();
    },
  };
}

/** A refusal: the browser is sent to the console's sign-in page with the problem's name, and no session. */
function expectRefused(step: Step, problem: string): void {
  expect(step.response.status, step.body).toBe(302);
  expect(step.response.headers.get('location')).toBe(`/console/?sso_problem=${problem}`);
  expect(step.response.headers.getSetCookie().some((line) => line.startsWith('menu_console_session='))).toBe(
    false,
  );
}

describe('single sign-on with OpenID Connect', () => {
  let server: Awaited<ReturnType<typeof listeningWithSso>>;
  let runtime: TestRuntime;
  let base: string;
  const signInAs = (...args: Parameters<typeof server.signInAs>) => server.signInAs(...args);

  beforeAll(async () => {
    server = await listeningWithSso({ oidcAllowedDomains: ['staff.example'] });
    ({ runtime, base } = server);
  });
  afterAll(() => server?.close());

  const sessionWith = async (step: Step) => {
    expect(step.response.status, step.body).toBe(302);
    expect(step.response.headers.get('location')).toBe('/console/');
    const cookie = step.response.headers
      .getSetCookie()
      .find((line) => line.startsWith('menu_console_session='))!;
    expect(cookie).toMatch(
      /^menu_console_session=[A-Za-z0-9_-]{40,}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const answer = await fetch(`${base}/admin/v1/session`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { account: { email: string; role: string; dispensary_ids: number[] } };
  };

  it('says it is configured, for the sign-in page', async () => {
    const answer = await fetch(`${base}/admin/v1/session/sso`);
    expect(await answer.json()).toEqual({ configured: true, sign_in_url: '/admin/v1/session/sso/sign-in' });
  });

  it('signs in an invited email, accepting the invitation, and knows the identity from then on', async () => {
    const issued = await runtime.services.accounts.invite(
      { email: 'Invited@Example.com', role: 'manager', dispensaryIds: [runtime.seed.dispensaryId] },
      CLI_OPERATOR,
      base,
    );
    expect(issued.account.active).toBe(false);
    const session = await sessionWith(await signInAs('invited@example.com'));
    expect(session.account).toMatchObject({ email: 'invited@example.com', role: 'manager' });
    const account = await runtime.services.accounts.get('invited@example.com', CLI_OPERATOR);
    expect(account.active).toBe(true);
    // The invitation link was used up by the sign-in.
    await expect(runtime.services.accounts.describeLink(new URL(issued.url).hash.slice(1))).rejects.toThrow(
      /unknown, already used or expired/,
    );
    // A second sign-in, with its own new session id.
    const again = await signInAs('invited@example.com');
    await sessionWith(again);
    const audit = await runtime.services.store.audit.list({
      actor: 'account:invited@example.com',
      limit: 10,
    });
    const signIns = audit.filter((entry) => entry.action === 'account.sso_sign_in');
    expect(signIns).toHaveLength(2);
    expect(signIns[0]!.detail).toMatchObject({ email: 'invited@example.com', note: 'signed in with SSO' });
    expect(JSON.stringify(audit)).not.toContain(OIDC_CLIENT.secret);
  });

  it('refuses an email with no account, sending the browser to the sign-in page that says so', async () => {
    expectRefused(await signInAs('stranger@elsewhere.example'), 'not_allowed');
    // The sign-in page it lands on is the console's (the words are its own: see the browser test).
    const page = await fetch(`${base}/console/?sso_problem=not_allowed`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('refuses an email the provider has not verified, even of an allowed domain', async () => {
    expectRefused(await signInAs('unverified:someone@staff.example'), 'unverified');
  });

  it('lets an allowed domain join as staff of no dispensary', async () => {
    const session = await sessionWith(await signInAs('new.hire@staff.example'));
    expect(session.account).toMatchObject({
      email: 'new.hire@staff.example',
      role: 'staff',
      dispensary_ids: [],
    });
    const [entry] = await runtime.services.store.audit.list({
      actor: 'account:new.hire@staff.example',
      limit: 5,
    });
    expect(entry).toMatchObject({ action: 'account.sso_sign_in', detail: { joined: true, role: 'staff' } });
    // A manager finds them and gives them a dispensary of its own.
    const manager = accountPrincipal(
      await runtime.services.accounts.get('invited@example.com', CLI_OPERATOR),
    );
    const listed = await runtime.services.accounts.list(manager);
    expect(listed.map((account) => account.email)).toContain('new.hire@staff.example');
    const changed = await runtime.services.accounts.change(
      'new.hire@staff.example',
      { dispensaryIds: [runtime.seed.dispensaryId] },
      manager,
    );
    expect(changed.dispensaryIds).toEqual([runtime.seed.dispensaryId]);
  });

  it('refuses a callback whose state is not the one this browser left with', async () => {
    const step = await signInAs('invited@example.com', (callback) => {
      callback.searchParams.set('state', 'not-the-state-this-browser-left-with');
      return callback;
    });
    expectRefused(step, 'expired');
  });

  it("refuses the provider's own error (the person cancelled there)", async () => {
    const step = await signInAs('invited@example.com', (callback) => {
      const refused = new URL(callback);
      refused.search = '';
      refused.searchParams.set('error', 'access_denied');
      refused.searchParams.set('state', callback.searchParams.get('state') ?? '');
      return refused;
    });
    expectRefused(step, 'provider_refused');
  });

  it('counts refused sign-ins as failed logins of the address: past the limit, even an invited email is refused before the provider', async () => {
    const guarded = await listeningWithSso({
      loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 2, perUsername: 0 },
    });
    try {
      await guarded.runtime.services.accounts.invite(
        { email: 'welcome@example.com', role: 'staff', dispensaryIds: [guarded.runtime.seed.dispensaryId] },
        CLI_OPERATOR,
        guarded.base,
      );
      expectRefused(await guarded.signInAs('stranger@elsewhere.example'), 'not_allowed');
      expectRefused(await guarded.signInAs('unverified:welcome@example.com'), 'unverified');
      // Two failures from this address: the next sign-in does not even go to the provider.
      const jar = new CookieJar();
      const start = await visit(jar, new URL(`${guarded.base}/admin/v1/session/sso/sign-in`));
      expectRefused(start, 'throttled');
      // Nor is a way back taken (its state is not checked: the address is refused first).
      const back = await visit(jar, new URL(`${guarded.base}/admin/v1/session/sso/callback?code=x&state=y`));
      expectRefused(back, 'throttled');
      // The same guard as passwords: a password sign-in from this address is refused too.
      const password = await fetch(`${guarded.base}/admin/v1/session`, {
        method: 'POST',
        headers: { origin: guarded.base, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'welcome@example.com', password: 'whatever it may be' }),
      });
      expect(password.status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('answers a server without single sign-on plainly', async () => {
    const plain = await testRuntime();
    try {
      const answer = await plain.app.inject({ url: '/admin/v1/session/sso' });
      expect(answer.json()).toEqual({ configured: false });
      const start = await plain.app.inject({ url: '/admin/v1/session/sso/sign-in' });
      expect(start.statusCode).toBe(404);
      expect(start.json().error.message).toContain('--oidc-issuer');
    } finally {
      await plain.close();
    }
  });
});
