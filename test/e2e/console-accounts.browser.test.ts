import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, expect, it } from 'vitest';
import { browserSuite } from '../helpers/browser-suite.js';
import { describeInChromium, seriousProblems } from '../helpers/chromium.js';
import { commandJson, REPOSITORY } from '../helpers/cli.js';
import { loopbackProvider, OIDC_CLIENT } from '../helpers/oidc-provider.js';
import { send } from '../helpers/process.js';

/**
 * People's accounts in the console, in Debian's Chromium against `menu-api serve`: an invitation's
 * link opened, a password chosen from the keyboard, signed in; the Team page inviting and removing;
 * sign-out, and sign-in with email and password; the password changed on the Account page from the
 * keyboard (ending another session) and signing out everywhere; single sign-on through a real OpenID
 * provider's own login page (oidc-provider, started here), and a refused one landing on the sign-in
 * page that says why; a passkey added on the Account page (in the DevTools virtual authenticator),
 * signing in alone, and removed; one-time codes set up there, then asked for after the password. Every
 * page is checked by axe-core (no serious or critical finding) and screenshot to
 * test-results/console-accounts/; the page's CSP (no inline script) is the server's own, and any
 * violation would be a console error.
 */
const SHOTS = join(REPOSITORY, 'test-results', 'console-accounts');
const PASSWORD = 'correct horse battery staple';
/** The password chosen on the Account page, from its test on. */
const NEW_PASSWORD = 'a new horse on a new battery';

describeInChromium('test/e2e/console-accounts.browser.test.ts', 'accounts in the console', () => {
  let provider: Awaited<ReturnType<typeof loopbackProvider>> | undefined;
  // Filled in by seed, once the provider's port (its issuer) is known.
  const serveArgs: string[] = [];
  const suite = browserSuite({
    serveArgs,
    seed: async (database) => {
      mkdirSync(SHOTS, { recursive: true });
      await commandJson(database.address, ['dispensary', 'create', '--name', 'Green Leaf']);
      provider = await loopbackProvider();
      serveArgs.push(
        ...['--oidc-issuer', provider.issuer, '--oidc-client-id', OIDC_CLIENT.id],
        ...['--oidc-client-secret', OIDC_CLIENT.secret],
      );
    },
    ready: async ({ server, page }) => {
      provider?.register(`${server.url}/admin/v1/session/sso/callback`);
      // The provider's development login page asks for a web font: nothing leaves this machine (the
      // loopback by name stays open: the passkey test reaches this server as localhost).
      await page.route(/^https?:\/\/(?!127\.0\.0\.1|localhost[:/])/, (route) => route.abort());
    },
    // A signed-out page asks for its session first: that 401 is expected.
    expected: (error) => error.includes('401'),
    timeoutMs: 120_000,
  });

  afterAll(() => provider?.close());

  const checked = async (name: string) => {
    await suite.page.screenshot({ path: join(SHOTS, `${name}.png`) });
    expect(await seriousProblems(suite.page), name).toEqual([]);
  };

  it('opens an invitation, chooses a password from the keyboard, and is signed in', async () => {
    const issued = await commandJson<{ link: string }>(suite.database.address, [
      'account',
      'invite',
      '--email',
      'owner@example.com',
      '--role',
      'operator',
      '--public-url',
      suite.server.url,
    ]);
    await suite.page.goto(issued.link);
    await suite.page.getByText('For owner@example.com').waitFor();
    // The secret is taken off the address at once.
    expect(suite.page.url()).toBe(`${suite.server.url}/console/link`);
    await checked('link');
    await suite.page.getByLabel('New password').focus();
    await suite.page.keyboard.type(PASSWORD);
    await suite.page.keyboard.press('Enter');
    await suite.page.getByRole('button', { name: 'Sign out', exact: true }).waitFor({ timeout: 10_000 });
    await suite.page.getByText('owner@example.com (operator)').waitFor();
  }, 60_000);

  it('invites a manager on the Team page and removes them', async () => {
    await suite.page.getByRole('link', { name: 'Team' }).click();
    await suite.page.getByRole('heading', { name: 'Team' }).waitFor();
    await suite.page.getByLabel('Email').fill('manager@example.com');
    await suite.page.getByLabel('Role').selectOption('manager');
    await suite.page.getByLabel('Green Leaf').check();
    await suite.page.getByRole('button', { name: 'Invite' }).click();
    await suite.page.getByText('One-time link for manager@example.com').waitFor();
    await checked('team-invited');
    await suite.page.getByRole('button', { name: 'Done' }).click();
    await suite.page.getByRole('cell', { name: 'manager@example.com', exact: true }).waitFor();
    await suite.page.getByRole('button', { name: 'Remove manager@example.com' }).click();
    await suite.page.getByRole('button', { name: 'Remove account' }).click();
    await expect
      .poll(() => suite.page.getByRole('cell', { name: 'manager@example.com', exact: true }).count())
      .toBe(0);
  }, 60_000);

  it('signs out, and signs in again with email and password', async () => {
    await suite.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await suite.page.getByLabel('Email').waitFor();
    await checked('sign-in');
    await suite.page.getByLabel('Email').fill('owner@example.com');
    await suite.page.getByLabel('Password').fill('not the password at all');
    await suite.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await suite.page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();
    await suite.page.getByLabel('Password').fill(PASSWORD);
    await suite.page.keyboard.press('Enter');
    await suite.page.getByText('owner@example.com (operator)').waitFor({ timeout: 10_000 });
    expect(suite.foreign).toEqual([]);
    expect(suite.problems.filter((problem) => !/status of 40[0-39]/.test(problem))).toEqual([]);
  }, 60_000);

  it('changes the password on the Account page from the keyboard, ending the other sessions, and signs out everywhere', async () => {
    const page = suite.page;
    const url = suite.server.url;
    // Another session of the same account, as another browser holds it.
    const elsewhere = await send(`${url}/admin/v1/session`, {
      method: 'POST',
      headers: { origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: PASSWORD }),
    });
    expect(elsewhere.status, elsewhere.body).toBe(201);
    const cookie = String([elsewhere.headers['set-cookie']].flat()[0]).split(';')[0]!;
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Current password').focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: 'Password changed. 1 other session was signed out.' })
      .waitFor();
    await checked('account-password');
    expect((await send(`${url}/admin/v1/session`, { headers: { cookie } })).status).toBe(401);

    // The button, then the dialog's own (focused when it opens), from the keyboard.
    await page.getByRole('button', { name: 'Sign out everywhere' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Sign out everywhere?' }).waitFor();
    await checked('account-sign-out-everywhere');
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: 'You are signed out everywhere (1 session ended)' })
      .waitFor();
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByText('owner@example.com (operator)').waitFor({ timeout: 10_000 });
  }, 60_000);

  it('signs in with single sign-on through the provider and back', async () => {
    await suite.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    const sso = suite.page.getByRole('link', { name: 'Sign in with single sign-on' });
    await sso.waitFor();
    await checked('sign-in-sso');
    await sso.click();
    // The provider's own login page (its development interactions): any password will do there.
    await suite.page.locator('input[name="login"]').fill('owner@example.com');
    await suite.page.locator('input[name="password"]').fill('anything at all');
    await suite.page.getByRole('button', { name: 'Sign-in' }).click();
    await suite.page.getByText('owner@example.com (operator)').waitFor({ timeout: 10_000 });
    expect(suite.page.url()).toBe(`${suite.server.url}/console/`);
    await checked('signed-in-with-sso');
    // Nothing but this server and the provider's pages (whose web font was not let out).
    const elsewhere = suite.foreign.filter((url) => !url.startsWith(provider!.issuer));
    expect(elsewhere.filter((url) => !url.startsWith('https://fonts.googleapis.com/'))).toEqual([]);
  }, 60_000);

  it('lands a refused single sign-on on the sign-in page, which says what happened and what to do', async () => {
    const page = suite.page;
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    // The provider remembers who signed in there: forgotten, so that its login form asks again.
    await page.context().clearCookies();
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await page.locator('input[name="login"]').fill('stranger@elsewhere.example');
    await page.locator('input[name="password"]').fill('anything at all');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Single sign-on did not sign you in' });
    await alert.waitFor({ timeout: 10_000 });
    const said = await alert.textContent();
    expect(said).toContain('there is no account here for your email address');
    expect(said).toContain('What to do: Ask your operator or manager for an invitation');
    // The problem's name is taken off the address; the other ways in are right there.
    expect(page.url()).toBe(`${suite.server.url}/console/`);
    await page.getByLabel('Email').waitFor();
    await checked('sso-refused');
  }, 60_000);

  it('adds a passkey on the Account page, signs in with it alone, and removes it', async () => {
    // A passkey's relying party must be a domain name: the same server, reached as localhost.
    const local = suite.server.url.replace('127.0.0.1', 'localhost');
    const page = suite.page;
    // What this test's own pages fetched and logged (the single sign-on test's provider pages came before).
    const [foreignBefore, problemsBefore] = [suite.foreign.length, suite.problems.length];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await page.goto(`${local}/console`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await page.getByLabel('Passkey name').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey "Test laptop" added' }).waitFor();
    await page.getByRole('cell', { name: 'Test laptop', exact: true }).waitFor();
    await checked('account-passkey');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('owner@example.com (operator)').waitFor({ timeout: 10_000 });

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Remove passkey Test laptop' }).click();
    await page.getByRole('button', { name: 'Remove passkey', exact: true }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'Test laptop', exact: true }).count()).toBe(0);
    // The authenticator still holds it, but the server no longer knows it: refused.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').filter({ hasText: 'could not sign you in' }).waitFor();
    await cdp.send('WebAuthn.disable');
    expect(suite.foreign.slice(foreignBefore).filter((url) => !url.startsWith(local))).toEqual([]);
    expect(
      suite.problems.slice(problemsBefore).filter((problem) => !/status of 40[0-39]/.test(problem)),
    ).toEqual([]);
  }, 60_000);

  it('sets up one-time codes on the Account page, and is asked for a code after the password', async () => {
    const page = suite.page;
    const problemsBefore = suite.problems.length;
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Set up one-time codes' }).click();
    const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    await page.getByLabel('Code from your app').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = (await page.getByRole('textbox', { name: 'Recovery codes' }).inputValue()).split('\n');
    expect(codes).toHaveLength(10);
    await checked('account-recovery-codes');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByText('Recovery codes left: 10').waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    await checked('sign-in-code');
    await page.getByLabel('Code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.keyboard.press('Enter');
    await page.getByText('owner@example.com (operator)').waitFor({ timeout: 10_000 });
    // Nothing of the secret or the codes stays in the browser's storage.
    const stored = await page.evaluate<string>(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })',
    );
    expect(stored).not.toContain(secret);
    expect(
      suite.problems.slice(problemsBefore).filter((problem) => !/status of 40[0-39]/.test(problem)),
    ).toEqual([]);
  }, 60_000);
  it('an integrator registers at /developers from the keyboard, confirms, and after approval signs in to its portal', async () => {
    const { page, server } = suite;
    const problemsBefore = suite.problems.length;
    await page.goto(`${server.url}/developers`);
    await page.getByLabel('Your name').focus();
    for (const value of [
      'Dana Developer',
      'Menu Apps Inc.',
      'dana@example.com',
      'A menu app for phones',
      PASSWORD,
    ]) {
      await page.keyboard.type(value);
      await page.keyboard.press('Tab');
    }
    await checked('developers-registration');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await checked('developers-registered');
    // Without --smtp-url the operator prints a link (the log only says so), as the docs say.
    await expect
      .poll(() => server.output(), { timeout: 10_000 })
      .toContain('integrator confirm-link dana@example.com');
    expect(server.output()).not.toContain('/developers/confirm#');
    const { link } = await commandJson<{ link: string }>(suite.database.address, [
      'integrator',
      'confirm-link',
      'dana@example.com',
    ]);
    await page.goto(link.replace(/^https?:\/\/[^/]+/, server.url));
    await expect
      .poll(() => page.getByLabel('Confirmation code').inputValue(), { timeout: 10_000 })
      .not.toBe('');
    // The secret leaves the address bar (and history) once it is in the field.
    expect(page.url()).not.toContain('#');
    await checked('developers-confirm');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Email confirmed' }).waitFor();
    await checked('developers-confirmed');
    await commandJson(suite.database.address, ['integrator', 'approve', 'dana@example.com']);

    await page.goto(`${server.url}/console/`);
    if (await page.getByRole('button', { name: 'Sign out' }).isVisible()) {
      await page.getByRole('button', { name: 'Sign out' }).click();
    }
    await page.getByLabel('Email').fill('dana@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your API access' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'New password' }).click();
    await page.getByText(/shown once/).waitFor();
    await checked('developers-portal');
    expect(
      suite.problems.slice(problemsBefore).filter((problem) => !/status of 40[0-39]/.test(problem)),
    ).toEqual([]);
  }, 60_000);

  it('the portal shows the integrator its usage per hour and manages its own webhooks, from the keyboard', async () => {
    const { page, server } = suite;
    const problemsBefore = suite.problems.length;
    const password = await page.getByRole('textbox', { name: /^Password of integrator-/ }).inputValue();
    const username = /integrator-\d+/.exec(
      (await page.getByRole('textbox', { name: /^Password of integrator-/ }).getAttribute('aria-label'))!,
    )![0];
    await page.getByRole('button', { name: 'Done' }).press('Enter');
    // Green Leaf publishes its menu; the integrator asks for it from the keyboard; a manager approves.
    const [greenLeaf] = await commandJson<{ id: number; name: string }[]>(suite.database.address, [
      'dispensary',
      'list',
    ]);
    await commandJson(suite.database.address, ['dispensary', 'publish', String(greenLeaf!.id)]);
    await page.getByLabel('Dispensary’s public name').focus();
    await page.keyboard.type('Green Leaf');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'waiting' }).waitFor();
    const { key } = await commandJson<{ key: string }>(suite.database.address, [
      ...['admin-key', 'create', '--scope', 'all', '--name', 'portal-manager'],
    ]);
    const asKey = (method: string, path: string) =>
      send(`${server.url}/admin/v1${path}`, { method, headers: { authorization: `Bearer ${key}` } });
    const [request] = JSON.parse((await asKey('GET', '/access-requests')).body) as { id: number }[];
    expect((await asKey('POST', `/access-requests/${request!.id}/approve`)).status).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: /Show token/ }).press('Enter');
    const token = await page.getByRole('textbox', { name: 'Token for Green Leaf' }).inputValue();
    await page.getByRole('button', { name: 'Done' }).press('Enter');
    for (let call = 0; call < 3; call++) {
      const menu = await send(`${server.url}/menu`, { headers: { store: token, username, password } });
      expect(menu.status, menu.body).toBe(200);
    }

    // Its usage: the last 48 hours, chosen from the keyboard.
    await page.getByLabel('Period').focus();
    await page.keyboard.press('ArrowDown');
    await page
      .getByRole('img', { name: `Requests per hour for ${username} over 48 hours: 3 in total, peak 3` })
      .waitFor({ timeout: 10_000 });
    await checked('developers-portal-usage');

    // A webhook: a private address is refused, saying why; an https one is added, its secret shown once.
    await page.getByLabel('URL').focus();
    await page.keyboard.type('https://10.0.0.1/hooks');
    await page.keyboard.press('Enter');
    await page.getByText(/must not point at a loopback, private/).waitFor();
    await page.getByLabel('URL').fill('');
    await page.keyboard.type('https://hooks.example.com/menu');
    await page.keyboard.press('Enter');
    const secret = page.getByRole('textbox', { name: /^Signing secret of webhook \d+/ });
    await secret.waitFor();
    expect(await secret.inputValue()).toMatch(/^whsec_/);
    await page.getByRole('cell', { name: 'https://hooks.example.com/menu' }).waitFor();
    await checked('developers-portal-webhooks');
    await page.getByRole('button', { name: 'Done' }).press('Enter');
    await page.getByRole('button', { name: /^Remove webhook \d+/ }).press('Enter');
    await page.getByRole('button', { name: 'Remove webhook', exact: true }).press('Enter');
    await expect
      .poll(() => page.getByRole('cell', { name: 'https://hooks.example.com/menu' }).count())
      .toBe(0);
    expect(
      suite.problems.slice(problemsBefore).filter((problem) => !/status of 40[0-39]/.test(problem)),
    ).toEqual([]);
  }, 90_000);
});
