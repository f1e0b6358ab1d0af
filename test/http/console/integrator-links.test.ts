import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../helpers/cli.js';
import { loggedTestRuntime } from '../../helpers/http.js';

/**
 * An integrator's confirmation link without --smtp-url: the server's log says that a confirmation
 * waits and how the operator gets its link, never the link (a secret); `menu-api integrator
 * confirm-link` prints a new one on the operator's terminal, and that one confirms.
 */
assertBuilt();

describe('confirmation links of integrators without email', () => {
  let server: Awaited<ReturnType<typeof loggedTestRuntime>>;

  const post = (url: string, fields: Record<string, string>) =>
    server.runtime.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const register = (email: string) =>
    post('/developers', {
      name: 'Lou Logged',
      company: 'Logs Inc.',
      email,
      building: 'A kiosk',
      password: 'a password of twelve or more',
    });
  const cli = (...args: string[]) => runCli(server.database, ['integrator', ...args]);

  beforeAll(async () => {
    server = await loggedTestRuntime();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('logs that a confirmation waits and how to get its link, never the link', async () => {
    expect((await register('lou@example.com')).statusCode).toBe(200);
    const log = server.lines.join('');
    expect(log).toContain('npx menu-api integrator confirm-link lou@example.com');
    expect(log).not.toMatch(/confirm#/);
    // No secret of a link's size: the log's request ids and the like are shorter.
    expect(log).not.toMatch(/[A-Za-z0-9_-]{40,}/);
  });

  it('`integrator confirm-link` prints a new link that confirms (earlier ones stop working)', async () => {
    const help = await cli('confirm-link', '--help');
    expect(help.stdout).toContain('--json');
    const first = await cli('confirm-link', 'lou@example.com', '--json');
    expect(first.code, first.stderr).toBe(0);
    const earlier = JSON.parse(first.stdout) as { link: string; emailed: boolean };
    expect(earlier).toMatchObject({ email: 'lou@example.com', emailed: false });
    const text = await cli('confirm-link', 'lou@example.com');
    expect(text.code, text.stderr).toBe(0);
    const link = /https?:\/\/\S+\/developers\/confirm#([A-Za-z0-9_-]+)/.exec(text.stdout);
    expect(link, text.stdout).toBeTruthy();
    const code = (url: string) => new URL(url).hash.slice(1);
    expect((await post('/developers/confirm', { code: code(earlier.link) })).statusCode).toBe(404);
    expect((await post('/developers/confirm', { code: link![1]! })).statusCode).toBe(200);
    // Confirmed, it needs no link: refused, saying why.
    const again = await cli('confirm-link', 'lou@example.com');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is waiting');
    const unknown = await cli('confirm-link', 'nobody@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('integrator list');
  });
});
