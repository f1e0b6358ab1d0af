import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegratorService } from '../../../src/services/integrators.js';
import { UNLIMITED } from '../../helpers/admin.js';
import { assertBuilt, runCli, runCommand } from '../../helpers/cli.js';
import { listeningForAccounts, PASSWORD, type Session, sessionOf } from '../../helpers/console-http.js';
import { send } from '../../helpers/process.js';
import { testRuntime } from '../../helpers/runtime.js';
import { type SmtpReceiver, startSmtpReceiver } from '../../helpers/smtp.js';

/**
 * Integrators onboarding themselves, over real HTTP with a real SMTP server: registration at
 * /developers, the emailed confirmation link, the operator's approval (which makes the credential),
 * and sign-in with the password chosen at registration.
 */
assertBuilt();

const DEV_PASSWORD = 'integrator horse battery staple';

describe('integrators registering at /developers', () => {
  let smtp: SmtpReceiver;
  let server: Awaited<ReturnType<typeof listeningForAccounts>>;
  let operator: Session;
  let developer: Session;

  const form = (path: string, fields: Record<string, string>, origin = server.base) =>
    send(`${server.base}${path}`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const register = (email: string, password = DEV_PASSWORD) =>
    form('/developers', {
      name: 'Dana Developer',
      company: 'Menu Apps Inc.',
      email,
      building: 'A menu app for phones',
      password,
    });
  /** The secret of the confirmation link of the last email to `email`. */
  const secretMailedTo = (email: string) => {
    const mail = smtp.received.filter((message) => message.to.includes(email)).at(-1);
    const link = mail?.text.match(/https?:\/\/\S+\/developers\/confirm#([A-Za-z0-9_-]+)/);
    expect(link, mail?.text).toBeTruthy();
    return link![1]!;
  };
  const signIn = (email: string, password: string) =>
    server.call('POST', '/session', undefined, { email, password });
  const integratorOf = async (email: string) => {
    const listed = await server.call('GET', '/integrators', operator);
    expect(listed.status, listed.body).toBe(200);
    return (
      JSON.parse(listed.body) as { id: number; email: string; status: string; credential: string | null }[]
    ).find((integrator) => integrator.email === email)!;
  };

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await listeningForAccounts({ smtpUrl: smtp.url });
    await server.account('staff@example.com');
    const issued = await server.runtime.services.accounts.invite(
      { email: 'olga@example.com', role: 'operator' },
      { actor: 'cli', role: 'operator', dispensaries: 'all' },
      server.base,
    );
    await server.runtime.services.accounts.redeemLink(new URL(issued.url).hash.slice(1), PASSWORD);
    operator = sessionOf(await signIn('olga@example.com', PASSWORD));
  });
  afterAll(async () => {
    await server?.runtime.close();
    await smtp?.close();
  });

  it('serves the registration page with no inline script and labelled fields', async () => {
    const page = await send(`${server.base}/developers`);
    expect(page.status).toBe(200);
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
    for (const field of ['name', 'company', 'email', 'building', 'password']) {
      expect(page.body).toContain(`<label for="${field}">`);
    }
    // The API reference points integrators here.
    expect((await send(`${server.base}/docs`)).body).toContain('href="developers"');
  });

  it('registers, emails a one-time link, and waits for the operator after confirmation', async () => {
    const answer = await register('Dev@Example.com');
    expect(answer.status, answer.body).toBe(200);
    expect(answer.body).toContain('Check your email');
    const secret = secretMailedTo('dev@example.com');
    // Not before the operator approves: the same refusal as a wrong password.
    expect((await signIn('dev@example.com', DEV_PASSWORD)).status).toBe(401);
    expect((await integratorOf('dev@example.com')).status).toBe('unconfirmed');

    const confirmed = await form('/developers/confirm', { code: secret });
    expect(confirmed.status, confirmed.body).toBe(200);
    expect(confirmed.body).toContain('reviews your registration');
    expect((await form('/developers/confirm', { code: secret })).status).toBe(404);
    expect((await integratorOf('dev@example.com')).status).toBe('waiting');
    expect((await signIn('dev@example.com', DEV_PASSWORD)).status).toBe(401);

    const { id } = await integratorOf('dev@example.com');
    const approved = await server.call('POST', `/integrators/${id}/approve`, operator);
    expect(approved.status, approved.body).toBe(200);
    expect(JSON.parse(approved.body)).toMatchObject({ status: 'approved', credential: `integrator-${id}` });
    const credentials = JSON.parse((await server.call('GET', '/credentials', operator)).body) as {
      username: string;
      dispensaries: number[] | null;
    }[];
    expect(
      credentials.find((credential) => credential.username === `integrator-${id}`)?.dispensaries,
    ).toEqual([]);
    expect((await server.call('POST', `/integrators/${id}/approve`, operator)).status).toBe(409);

    const session = sessionOf(await signIn('dev@example.com', DEV_PASSWORD));
    // An integrator reaches none of the sync API's dispensary routes.
    expect((await server.call('GET', '/dispensaries', session)).status).toBe(403);
    expect((await server.call('GET', '/integrators', session)).status).toBe(403);
    developer = session;
  });

  it('the portal shows the credential, rotates its password once, and asks a dispensary for access', async () => {
    const { seed } = server.runtime;
    const portal = JSON.parse((await server.call('GET', '/developer', developer)).body);
    const username = portal.integrator.credential as string;
    expect(portal).toMatchObject({
      integrator: { email: 'dev@example.com', status: 'approved' },
      access: [],
    });
    const rotated = await server.call('POST', '/developer/rotate-password', developer);
    expect(rotated.status, rotated.body).toBe(200);
    const { password } = JSON.parse(rotated.body) as { username: string; password: string };
    expect(
      JSON.stringify(JSON.parse((await server.call('GET', '/developer', developer)).body)),
    ).not.toContain(password);

    // Only a published dispensary, by its public name.
    const asked = () =>
      server.call('POST', '/developer/access', developer, { dispensary: 'test collective' });
    expect((await asked()).status).toBe(404);
    const published = await server.call('PATCH', `/dispensaries/${seed.dispensaryId}`, operator, {
      published: true,
    });
    expect(published.status, published.body).toBe(200);
    const request = await asked();
    expect(request.status, request.body).toBe(201);
    const { id } = JSON.parse(request.body) as { id: number };
    expect(JSON.parse(request.body)).toMatchObject({ status: 'waiting', dispensary_id: seed.dispensaryId });
    expect((await asked()).status).toBe(409);
    expect((await server.call('POST', `/developer/access/${id}/token`, developer)).status).toBe(409);

    // The dispensary's managers decide; staff may not.
    const readMenu = (token: string) =>
      send(`${server.base}/menu`, { headers: { store: token, username, password } });
    expect((await readMenu(seed.token)).status).toBe(403);
    const staff = sessionOf(await signIn('staff@example.com', PASSWORD));
    expect((await server.call('GET', '/access-requests', staff)).status).toBe(403);
    await server.runtime.services.accounts.invite(
      { email: 'max@example.com', role: 'manager', dispensaryIds: [seed.dispensaryId] },
      { actor: 'cli', role: 'operator', dispensaries: 'all' },
      server.base,
    );
    const managerLink = await server.runtime.services.accounts.resetPassword(
      'max@example.com',
      { actor: 'cli', role: 'operator', dispensaries: 'all' },
      server.base,
    );
    await server.runtime.services.accounts.redeemLink(new URL(managerLink.url).hash.slice(1), PASSWORD);
    const manager = sessionOf(await signIn('max@example.com', PASSWORD));
    const waiting = JSON.parse((await server.call('GET', '/access-requests', manager)).body);
    expect(waiting).toEqual([expect.objectContaining({ id, email: 'dev@example.com', status: 'waiting' })]);
    const approved = await server.call('POST', `/access-requests/${id}/approve`, manager);
    expect(approved.status, approved.body).toBe(200);
    expect((await server.call('POST', `/access-requests/${id}/approve`, manager)).status).toBe(409);

    // Now its credential reads the dispensary: with the dispensary's token, or its own shown once.
    expect((await readMenu(seed.token)).status).toBe(200);
    const issued = await server.call('POST', `/developer/access/${id}/token`, developer);
    expect(issued.status, issued.body).toBe(200);
    const { token } = JSON.parse(issued.body) as { token: string };
    const menu = await readMenu(token);
    expect(menu.status, menu.body).toBe(200);
    const again = JSON.parse((await server.call('POST', `/developer/access/${id}/token`, developer)).body);
    expect((await readMenu(token)).status).toBe(403);
    expect((await readMenu(again.token)).status).toBe(200);
    // Withdrawn: neither token reads it any more, nor does the credential with the dispensary's.
    const withdrawn = await server.call('POST', `/access-requests/${id}/decline`, manager);
    expect(JSON.parse(withdrawn.body)).toMatchObject({ status: 'declined', token_issued: false });
    expect((await readMenu(again.token)).status).toBe(403);
    expect((await readMenu(seed.token)).status).toBe(403);
    const audit = JSON.stringify(await server.runtime.services.audit.list({ limit: 1000 }));
    for (const secret of [password, token, again.token]) expect(audit).not.toContain(secret);
  });

  it('declines, and the declined integrator never signs in', async () => {
    await register('declined@example.com');
    await form('/developers/confirm', { code: secretMailedTo('declined@example.com') });
    const { id } = await integratorOf('declined@example.com');
    const declined = await server.call('POST', `/integrators/${id}/decline`, operator);
    expect(JSON.parse(declined.body).status).toBe('declined');
    expect((await signIn('declined@example.com', DEV_PASSWORD)).status).toBe(401);
    expect((await server.call('POST', `/integrators/${id}/approve`, operator)).status).toBe(409);
  });

  it('the command line lists, approves and declines through the same service', async () => {
    // In this process (runCommand), but the approval: the built binary, as its own process (runCli).
    const cli = (...args: string[]) => runCommand(server.runtime.database, ['integrator', ...args]);
    const help = await cli('--help');
    expect(help.stdout).toMatch(/list[\s\S]*approve[\s\S]*decline/);
    await register('cli@example.com');
    await form('/developers/confirm', { code: secretMailedTo('cli@example.com') });
    const listed = await cli('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ email: 'cli@example.com', status: 'waiting', credential: null }),
    );
    const approved = await runCli(server.runtime.database, [
      'integrator',
      'approve',
      'cli@example.com',
      '--json',
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'approved' });
    // Its credential reads no dispensary yet, and the list says so (not "all").
    const listedCredentials = await runCommand(server.runtime.database, ['credential', 'list']);
    expect(listedCredentials.stdout).toMatch(/integrator-\d+\s+.*none/);
    const again = await cli('decline', 'cli@example.com');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is approved, not waiting');
    expect(sessionOf(await signIn('cli@example.com', DEV_PASSWORD)).csrf).toBeTruthy();

    // Removing the account revokes its credential with it.
    const { id, credential } = await integratorOf('cli@example.com');
    expect((await server.call('DELETE', `/accounts/${id}`, operator)).status).toBe(204);
    const credentials = JSON.parse((await server.call('GET', '/credentials', operator)).body) as {
      username: string;
      revoked_at: string | null;
    }[];
    expect(credentials.find((entry) => entry.username === credential)?.revoked_at).not.toBeNull();
  });

  it('with --integrator-approval automatic, confirming the email is enough', async () => {
    const automatic = new IntegratorService(server.runtime.services.store, { approval: 'automatic' });
    const registered = await automatic.register(
      { email: 'auto@example.com', name: 'Al', company: 'Auto', building: 'A bot', password: DEV_PASSWORD },
      server.base,
    );
    expect(registered.emailed).toBe(false);
    const confirmed = await automatic.confirm(registered.url!.split('#')[1]);
    expect(confirmed).toMatchObject({
      status: 'approved',
      credentialUsername: `integrator-${confirmed.accountId}`,
    });
    expect(sessionOf(await signIn('auto@example.com', DEV_PASSWORD)).csrf).toBeTruthy();
  });

  it('answers a known email as any other, and sends it nothing', async () => {
    const before = smtp.received.length;
    const answer = await register('staff@example.com');
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('Check your email');
    expect(smtp.received.length).toBe(before);
  });

  it('a registration never confirmed does not keep the address: registering again sends a new link', async () => {
    await register('twice@example.com', 'first password of twelve');
    const first = secretMailedTo('twice@example.com');
    await register('twice@example.com');
    const second = secretMailedTo('twice@example.com');
    expect(second).not.toBe(first);
    expect((await form('/developers/confirm', { code: first })).status).toBe(404);
    expect((await form('/developers/confirm', { code: second })).status).toBe(200);
    // Confirmed, it keeps the address: a third registration sends nothing.
    const before = smtp.received.length;
    await register('twice@example.com');
    expect(smtp.received.length).toBe(before);
    const { id } = await integratorOf('twice@example.com');
    await server.call('POST', `/integrators/${id}/approve`, operator);
    expect((await signIn('twice@example.com', DEV_PASSWORD)).status).toBe(201);
  });

  it('one address registers a limited number of times a window (the login guard’s per-name limit)', async () => {
    const guarded = await testRuntime({
      config: { ...UNLIMITED, loginGuard: { windowMs: 60_000, perPair: 0, perAddress: 0, perUsername: 2 } },
    });
    try {
      const post = (email: string) =>
        guarded.app.inject({
          method: 'POST',
          url: '/developers',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            name: 'N',
            company: 'C',
            email,
            building: 'B',
            password: DEV_PASSWORD,
          }).toString(),
        });
      expect((await post('one@example.com')).statusCode).toBe(200);
      expect((await post('two@example.com')).statusCode).toBe(200);
      const refused = await post('three@example.com');
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await guarded.close();
    }
  });

  it('refuses bad fields with the form again, a foreign origin, and a wrong code', async () => {
    const short = await register('short@example.com', 'short');
    expect(short.status).toBe(400);
    expect(short.body).toContain('12 to 200 characters');
    expect(short.body).toContain('value="short@example.com"');
    expect(short.body).not.toContain('value="short"');
    expect((await form('/developers', { email: 'x@example.com' }, 'https://evil.example')).status).toBe(403);
    expect((await form('/developers/confirm', { code: 'not-a-real-code-at-all-xyz' })).status).toBe(404);
  });
});
