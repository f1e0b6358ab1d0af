import type { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { readSettings } from '../../src/cli/settings-options.js';
import { SETTINGS } from '../../src/config/settings.js';
import { DEFAULTS, type ServerConfig, serverConfig } from '../../src/config.js';
import { runInProcess } from '../helpers/cli.js';

/** What `serve` would run with, for these arguments and environment, without starting a server. */
async function serveConfig(args: string[], env: Record<string, string> = {}): Promise<ServerConfig> {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const program = buildProgram().exitOverride();
  const serve = program.commands.find((command) => command.name() === 'serve')!;
  let config: ServerConfig | undefined;
  serve.exitOverride().action((_options, self: Command) => {
    config = serverConfig(readSettings(self));
  });
  await program.parseAsync(['serve', ...args], { from: 'user' });
  return config!;
}

/** Each setting once: the table is the only place a flag or an environment variable is declared. */
describe('the settings table', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const entries = Object.values(SETTINGS);

  it('gives every setting its own option and its own environment variable', () => {
    const flags = entries.map((setting) => setting.flag.split(' ')[0]);
    const variables = entries.map((setting) => setting.env);
    expect(new Set(flags).size).toBe(entries.length);
    expect(new Set(variables).size).toBe(entries.length);
    expect(variables.every((name) => /^[A-Z][A-Z0-9_]*$/.test(name))).toBe(true);
  });

  it('serve --help lists every option with its variable, and nothing the table does not declare', async () => {
    const help = (await runInProcess(['serve', '--help'])).stdout;
    for (const setting of entries) {
      const line = help.split('\n').find((text) => text.trimStart().startsWith(setting.flag));
      expect(line, setting.flag).toBeDefined();
      expect(help.slice(help.indexOf(line!)), setting.flag).toMatch(new RegExp(`env: ${setting.env}\\)`));
    }
    const declared = new Set(entries.map((setting) => setting.flag.split(' ')[0]));
    const listed = [...help.matchAll(/^ {2}(--[a-z-]+)/gm)].map((match) => match[1]);
    expect(listed.filter((flag) => !declared.has(flag!))).toEqual(['--json']);
  });

  it('with nothing given, serve runs with DEFAULTS', async () => {
    vi.stubEnv('DATABASE_URL', undefined);
    for (const setting of entries) vi.stubEnv(setting.env, undefined);
    expect(await serveConfig([])).toEqual(DEFAULTS);
  });

  it('the variables that had no option, and the options that had no variable, now work both ways', async () => {
    for (const setting of entries) vi.stubEnv(setting.env, undefined);
    expect(await serveConfig(['--admin-body-limit', '1024', '--change-poll-ms', '40'])).toMatchObject({
      adminBodyLimit: 1024,
      changePollMs: 40,
    });
    expect(
      await serveConfig([], { ADMIN_BODY_LIMIT: '2048', CHANGE_POLL_MS: '60', REMEMBER_CREDENTIALS_MS: '0' }),
    ).toMatchObject({ adminBodyLimit: 2048, changePollMs: 60, rememberCredentialsMs: 0 });
    // The option wins over its variable.
    expect(await serveConfig(['--change-poll-ms', '70'], { CHANGE_POLL_MS: '60' })).toMatchObject({
      changePollMs: 70,
    });
  });

  it('a switch reads true or false from its variable; anything else is a usage error', async () => {
    for (const setting of entries) vi.stubEnv(setting.env, undefined);
    expect((await serveConfig([], { DEMO: 'true' })).demo).toBe(true);
    expect((await serveConfig([], { DEMO: 'false' })).demo).toBe(false);
    expect((await serveConfig(['--demo'], { DEMO: '0' })).demo).toBe(true);
    expect((await serveConfig([])).demo).toBe(false);
    vi.stubEnv('DEMO', 'maybe');
    const result = await runInProcess(['serve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`option '--demo' value 'maybe' from env 'DEMO' is invalid`);
  });

  it('a bad value names the option and says what it takes, without a stack trace', async () => {
    const [port, bucket] = await Promise.all([
      runInProcess(['serve', '--port', 'x']),
      runInProcess(['serve', '--rate-limit-address', '1']),
    ]);
    expect(port).toMatchObject({ code: 1, stdout: '' });
    expect(port.stderr).toContain('--port must be a whole number, not "x"');
    expect(port.stderr).not.toContain('    at ');
    expect(bucket.stderr).toContain("option '--rate-limit-address <rate,burst>' argument '1' is invalid");
  });
});
