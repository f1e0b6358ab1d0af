import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runCommand } from '../helpers/cli.js';
import { send } from '../helpers/process.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { startSmtpReceiver } from '../helpers/smtp.js';

assertBuilt();

/**
 * `account invite` and `account reset-password` with --smtp-url, against a real SMTP server (the
 * smtp-server package) and a real server over HTTP sharing the database: the person gets the link by
 * email, and opening it (the console's link page posts its token) sets the password and signs in.
 */
describe('the one-time links by email', () => {
  let runtime: TestRuntime;
  let base: string;

  beforeAll(async () => {
    runtime = await testRuntime();
    await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => runtime.close());

  // In this process (runCommand); the reset below runs the built binary as its own process.
  const invite = (email: string, smtpUrl: string) =>
    runCommand(runtime.database, [
      'account',
      'invite',
      '--email',
      email,
      '--role',
      'manager',
      '--dispensaries',
      String(runtime.seed.dispensaryId),
      '--smtp-url',
      smtpUrl,
      '--public-url',
      base,
      '--json',
    ]);

  /** What the console's link page does with a link: post its token (after #) with the chosen password. */
  const accept = (link: string, password: string) =>
    send(`${base}/admin/v1/account-link/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ token: new URL(link).hash.slice(1), password }),
    });

  /** The account the session cookie of a sign-in belongs to. */
  const signedInAs = async (setCookie: string | string[] | undefined) => {
    const cookie = String([setCookie].flat()[0]).split(';')[0]!;
    const session = await send(`${base}/admin/v1/session`, { headers: { cookie } });
    expect(session.status, session.body).toBe(200);
    return JSON.parse(session.body).account.email as string;
  };

  it('emails the invitation; its link, opened, sets the password and signs the person in', async () => {
    const mail = await startSmtpReceiver();
    try {
      const result = await invite('Manager@Example.com', mail.url);
      expect(result.code, result.stderr).toBe(0);
      const printed = JSON.parse(result.stdout);
      expect(printed.emailed).toBe(true);
      expect(mail.received).toHaveLength(1);
      const [message] = mail.received;
      expect(message!.to).toEqual(['manager@example.com']);
      expect(message!.raw).toContain('Subject: You are invited to the dispensary menu console');
      const link = /https?:\/\/\S+/.exec(message!.text)?.[0];
      expect(link).toBe(printed.link);
      expect(link!.startsWith(`${base}/console/link#`)).toBe(true);
      // The address is the console's page (the token after # never reaches a server's log).
      const page = await send(link!.split('#')[0]!);
      expect(page.status).toBe(200);
      const accepted = await accept(link!, 'correct horse battery staple');
      expect(accepted.status, accepted.body).toBe(201);
      expect(await signedInAs(accepted.headers['set-cookie'])).toBe('manager@example.com');
      // It works once.
      expect((await accept(link!, 'another horse battery staple')).status).toBe(404);
      // The password chosen is the account's.
      const signIn = await send(`${base}/admin/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify({ email: 'manager@example.com', password: 'correct horse battery staple' }),
      });
      expect(signIn.status, signIn.body).toBe(201);
    } finally {
      await mail.close();
    }
  }, 60_000);

  it('when the SMTP server refuses: says so and why, exits 1, and prints the link, which still works', async () => {
    const mail = await startSmtpReceiver({ refuse: 'No such mailbox here' });
    try {
      const result = await invite('staff@example.com', mail.url);
      expect(result.code).toBe(1);
      const printed = JSON.parse(result.stdout);
      expect(printed.emailed).toBe(false);
      expect(printed.email_error).toContain('No such mailbox here');
      expect(printed.email_error).toContain('send the link to staff@example.com yourself');
      expect(mail.received).toHaveLength(0);
      const accepted = await accept(printed.link, 'staff horse battery staple');
      expect(accepted.status, accepted.body).toBe(201);
      expect(await signedInAs(accepted.headers['set-cookie'])).toBe('staff@example.com');

      // Without --json: the link on stdout, the error on stderr.
      const reset = await runCli(runtime.database, [
        'account',
        'reset-password',
        'staff@example.com',
        '--smtp-url',
        mail.url,
        '--public-url',
        base,
      ]);
      expect(reset.code).toBe(1);
      expect(reset.stdout).toMatch(new RegExp(`One-time link .*: ${base}/console/link#\\S+`));
      expect(reset.stderr).toMatch(
        /^error: Could not email the link to staff@example\.com: .*No such mailbox here/,
      );
    } finally {
      await mail.close();
    }
  }, 60_000);

  it('when no SMTP server answers: the same, without waiting for long', async () => {
    // A port that was just free: the connection is refused.
    const gone = await startSmtpReceiver();
    await gone.close();
    const result = await invite('late@example.com', gone.url);
    expect(result.code).toBe(1);
    const printed = JSON.parse(result.stdout);
    expect(printed.emailed).toBe(false);
    expect(printed.email_error).toContain('ECONNREFUSED');
    expect(printed.link).toMatch(new RegExp(`^${base}/console/link#`));
  }, 60_000);
});
