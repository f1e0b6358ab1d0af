import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { adminCaller } from '../helpers/admin.js';
import {
  adminKeyCreate,
  assertBuilt,
  BIN,
  cleanEnvironment,
  commandJson,
  REPOSITORY,
  runCli,
  runCommand,
} from '../helpers/cli.js';
import { GENEROUS_LIMITS, SAMPLE_MENU, TEST_SCRYPT, temporaryDirectory } from '../helpers/runtime.js';
import { until } from '../helpers/wait.js';

/** Runs a command under a pseudo-terminal (util-linux `script`), typing `input` into it. */
function onTerminal(args: string[], input: string): Promise<{ code: number; output: string }> {
  const command = [process.execPath, BIN, ...args]
    .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
    .join(' ');
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: REPOSITORY, env: cleanEnvironment(), timeout: 60_000 },
      (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout }),
    );
    child.stdin?.end(input);
  });
}

/** For a test that starts nine CLI processes one after the other: each is a Node start, seconds on a busy machine. */
const CLI_PROCESSES = 90_000;

const VERSION = (JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string })
  .version;

describe('the CLI in the first hour (issue 15, point 10)', () => {
  const folder = temporaryDirectory();
  const db = join(folder.path, 'menu.db');
  beforeAll(() => assertBuilt());
  afterAll(() => folder.remove());

  it('--version prints the version', async () => {
    const result = await runCli(undefined, ['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(VERSION);
  });

  it(
    'dispensary remove asks on a terminal, refuses without --yes when there is none, and takes --yes',
    async () => {
      for (const name of ['Keep', 'Go', 'Scripted'])
        await commandJson(db, ['dispensary', 'create', '--name', name]);
      const piped = await runCli(db, ['dispensary', 'remove', '1']);
      expect(piped.code).toBe(1);
      expect(piped.stderr).toBe(
        'error: Removing dispensary 1 (Keep) and its whole menu cannot be undone, and there is no terminal to ask on. Pass --yes to confirm.\n',
      );
      const declined = await onTerminal(['--db', db, 'dispensary', 'remove', '1'], 'no\n');
      expect(declined.output).toContain(
        'Remove dispensary 1 (Keep) and its whole menu? This cannot be undone. Type yes to confirm:',
      );
      expect(declined.output).toContain('Nothing was removed.');
      const accepted = await onTerminal(['--db', db, 'dispensary', 'remove', '2'], 'yes\n');
      expect(accepted.output).toContain('Removed dispensary 2.');
      expect(await commandJson(db, ['dispensary', 'remove', '3', '--yes'])).toEqual({ id: 3, removed: true });
      const left = await commandJson<{ name: string }[]>(db, ['dispensary', 'list']);
      expect(left.map((dispensary) => dispensary.name)).toEqual(['Keep']);
    },
    CLI_PROCESSES,
  );

  it(
    'admin-key list shows when each key was last used and whether it is revoked',
    async () => {
      const key = await commandJson<{ key: string }>(db, adminKeyCreate('all', 'pos'));
      await commandJson(db, adminKeyCreate('all', 'old'));
      await commandJson(db, ['admin-key', 'revoke', 'old']);
      const runtime: Runtime = await createRuntime(
        { ...DEFAULTS, database: db, ...GENEROUS_LIMITS },
        { logger: false, scryptCost: TEST_SCRYPT },
      );
      try {
        expect((await adminCaller(runtime.app, key.key)('GET', '/dispensaries')).statusCode).toBe(200);
        type Listed = { name: string; last_used_at: string | null; revoked: boolean };
        let listed: Listed[] = [];
        await until(
          async () => {
            listed = await commandJson<Listed[]>(db, ['admin-key', 'list']);
            return listed.find((entry) => entry.name === 'pos')?.last_used_at !== null;
          },
          20_000,
          'the last use of key pos',
        );
        expect(listed).toMatchObject([
          { name: 'pos', last_used_at: expect.stringMatching(/^\d{4}-/), revoked: false },
          { name: 'old', last_used_at: null, revoked: true },
        ]);
        const table = await runCommand(db, ['admin-key', 'list']);
        expect(table.stdout).toMatch(/^NAME\s+SCOPE\s+CREATED\s+LAST USED\s+REVOKED$/m);
        expect(table.stdout).toMatch(/^old\s+all\s+\S+\s+never\s+yes, \d{4}-/m);
        expect(table.stdout).toMatch(/^pos\s+all\s+\S+\s+\d{4}-\S+\s+no$/m);
      } finally {
        await runtime.close();
      }
    },
    CLI_PROCESSES,
  );

  it('menu upsert of the same file twice creates no duplicates: items without an id match by name and brand', async () => {
    const file = join(folder.path, 'upsert.json');
    const items = (SAMPLE_MENU as { id?: number }[]).slice(0, 2).map(({ id: _id, ...item }) => item);
    writeFileSync(file, JSON.stringify(items));
    const first = await commandJson<{ created: number[]; updated: number[] }>(db, [
      'menu',
      'upsert',
      '--dispensary',
      '1',
      file,
    ]);
    expect(first.created).toHaveLength(2);
    const second = await commandJson<{ created: number[]; updated: number[] }>(db, [
      'menu',
      'upsert',
      '--dispensary',
      '1',
      file,
    ]);
    expect(second).toEqual({ created: [], updated: first.created });
    const listed = await commandJson<{ items: number }[]>(db, ['dispensary', 'list']);
    expect(listed[0]!.items).toBe(2);
  });

  it.each(['menu-table.ts', 'poll-inventory.ts'])(
    'examples/%s --help prints its usage, not a stack trace',
    async (file) => {
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', join(REPOSITORY, 'examples', file), '--help'],
          { cwd: REPOSITORY, env: cleanEnvironment(), timeout: 30_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: npx tsx examples/${file} [options]`);
      expect(result.stdout).toContain('--base-url URL');
    },
  );
});
