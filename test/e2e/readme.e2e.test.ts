import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles, sameContent } from '../../scripts/examples.js';
import {
  assertBuilt,
  cleanEnvironment,
  cliJson,
  REPOSITORY,
  type ServerProcess,
  startServe,
} from '../helpers/cli.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

/**
 * The README as a tested document (issue 15): every shell block that calls the API or the CLI runs, in
 * order, against one demo server on a free port over a temporary database, and must succeed. Blocks
 * are found, not listed: a block added later is run too. The only substitutions are the ones the
 * README declares ("How to read the examples"): the demo server's address, and `$ADMIN_KEY`.
 * A block opts out only with `<!-- readme-test: skip (reason) -->` on the line before it.
 */
const README = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
const README_ADDRESS = 'http://127.0.0.1:8080';
const SKIP = /^<!-- readme-test: skip \((.*)\) -->$/;
const SHELL_FENCE = /^```(sh|bash|shell)\s*$/;

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skip?: string;
}

function shellBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!SHELL_FENCE.test(lines[index]!)) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index]!); index++)
      body.push(lines[index]!);
    const marker = SKIP.exec(lines[start - 1] ?? '');
    blocks.push({ line: start + 1, code: body.join('\n'), ...(marker ? { skip: marker[1]!.trim() } : {}) });
  }
  return blocks;
}

/** A block calls the API or the CLI when one of its commands (comments aside) runs curl, the CLI or an example. */
function callsApiOrCli(block: Block): boolean {
  return block.code
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .some((line) => /\bcurl\s|\bmenu-api\b|\bexamples\//.test(line));
}

/** Runs a block with bash, every command checked; curl fails on an HTTP error (4xx, 5xx) too. */
function runBlock(
  code: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body --show-error "$@"; }\n';
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `${prelude}${code}\n`],
      { cwd: REPOSITORY, env, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

const BLOCKS = shellBlocks(README);
const RUN = BLOCKS.filter((block) => !block.skip && callsApiOrCli(block));

const WEBHOOK_KEY = Buffer.alloc(32, 7).toString('base64');

describe('README.md runs as written', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let adminKey: string;

  beforeAll(async () => {
    assertBuilt();
    database = await testDatabase();
    // The webhook examples encrypt secrets with this key; PostgreSQL has no key file to fall back on.
    server = await startServe(database.address, ['--demo', '--webhook-key', WEBHOOK_KEY]);
    adminKey = (
      await cliJson<{ key: string }>(database.address, [
        'admin-key',
        'create',
        '--scope',
        'all',
        '--name',
        'readme',
      ])
    ).key;
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await database?.cleanup();
  });

  it('finds its shell blocks; each skipped one says why; the placeholders are documented', () => {
    expect(RUN.length).toBeGreaterThanOrEqual(8);
    for (const block of BLOCKS.filter((found) => found.skip !== undefined))
      expect(block.skip!.length, `the skip marker before line ${block.line} gives no reason`).toBeGreaterThan(
        5,
      );
    expect(README).toContain('How to read the examples');
    expect(README).toContain('`$ADMIN_KEY`');
    // One spelling of the command line: `npx menu-api` (bare `menu-api` only when installed globally).
    for (const block of BLOCKS)
      expect(block.code, `line ${block.line}`).not.toMatch(/(?<![\w/.-])(?<!npx )menu-api\s/m);
  });

  it('ships examples/menu.json and menu.csv as `npm run examples` makes them, and both import cleanly', async () => {
    for (const [name, text] of Object.entries(exampleFiles())) {
      const committed = readFileSync(join(REPOSITORY, 'examples', name), 'utf8');
      expect(sameContent(name, committed, text), `examples/${name}: run npm run examples`).toBe(true);
    }
    const shop = await cliJson<{ id: number }>(database.address, [
      'dispensary',
      'create',
      '--name',
      'Template Test',
    ]);
    for (const file of ['examples/menu.json', 'examples/menu.csv']) {
      const report = await cliJson<{ items: number }>(database.address, [
        'menu',
        'import',
        '--dispensary',
        String(shop.id),
        join(REPOSITORY, file),
      ]);
      expect(report.items, file).toBe(3);
    }
    const sync = await fetch(`${server.url}/admin/v1/dispensaries/${shop.id}/menu`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: readFileSync(join(REPOSITORY, 'examples', 'menu.json')),
    });
    expect(sync.status, await sync.clone().text()).toBe(200);
  });

  it('runs every shell block that calls the API or the CLI, in order, and each succeeds', async () => {
    const env = cleanEnvironment({
      DATABASE_URL: database.address,
      MENU_API_URL: server.url,
      ADMIN_KEY: adminKey,
      WEBHOOK_KEY,
    });
    const failures: string[] = [];
    for (const block of RUN) {
      const code = block.code.replaceAll(README_ADDRESS, server.url);
      const result = await runBlock(code, env);
      if (result.code !== 0)
        failures.push(
          `README.md line ${block.line} exited ${result.code}:\n${code}\n${result.stdout}${result.stderr}`,
        );
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
