import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles, sameContent } from '../../scripts/examples.js';
import {
  assertBuilt,
  cleanEnvironment,
  commandJson,
  REPOSITORY,
  type ServerProcess,
  startServe,
} from '../helpers/cli.js';
import {
  callsApiOrCli,
  INDEX,
  manualBlocks,
  manualPages,
  README_ADDRESS,
  readPage,
  runBlock,
} from '../helpers/manual.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

/**
 * The README and the manual in docs/ as tested documents (issues 15 and 28): every shell block that
 * calls the API or the CLI runs against one demo server on a free port over a temporary database, and
 * must succeed. First the README's blocks, then each page's, in the order docs/README.md (the manual's
 * index) lists the pages, each page's blocks in order; a page's blocks may rely on earlier blocks of
 * that page only. Blocks and pages are found, not listed: a block or a page added later is run too (a
 * page the index does not list fails the test). The only substitutions are the ones the manual declares
 * ("How to read the examples"): the demo server's address, and `$ADMIN_KEY`.
 * A block opts out only with `<!-- readme-test: skip (reason) -->` on the line before it.
 *
 * `npx menu-api` and `npx tsx` run what npx would find in this repository (its own `bin/menu-api`, the
 * installed tsx) through a small `npx` first on the PATH: npm's own start costs about 0.6 s a call, a
 * third of this file's time, and says nothing about the manual. One test still runs the real npx, so
 * the spelling the manual uses is proved to resolve.
 */
const PAGES = manualPages();
const BLOCKS = manualBlocks();
const RUN = BLOCKS.filter((block) => !block.skip && callsApiOrCli(block));

const WEBHOOK_KEY = Buffer.alloc(32, 7).toString('base64');

/** A folder holding an `npx` that runs this repository's menu-api and tsx directly, and npx otherwise. */
function directNpx(): string {
  const folder = mkdtempSync(join(tmpdir(), 'menu-api-npx-'));
  const script = [
    '#!/usr/bin/env bash',
    'case "$1" in',
    `  menu-api) shift; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPOSITORY, 'bin', 'menu-api'))} "$@" ;;`,
    `  tsx) shift; exec ${JSON.stringify(join(REPOSITORY, 'node_modules', '.bin', 'tsx'))} "$@" ;;`,
    'esac',
    // The real npx: the first one on the PATH after this folder.
    `PATH=${JSON.stringify(process.env.PATH ?? '')} exec npx "$@"`,
    '',
  ].join('\n');
  writeFileSync(join(folder, 'npx'), script);
  chmodSync(join(folder, 'npx'), 0o755);
  return folder;
}

describe('README.md and docs/ run as written', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let adminKey: string;
  let npxFolder: string;

  beforeAll(async () => {
    npxFolder = directNpx();
    assertBuilt();
    database = await testDatabase();
    // The webhook examples encrypt secrets with this key; PostgreSQL has no key file to fall back on.
    server = await startServe(database.address, ['--demo', '--webhook-key', WEBHOOK_KEY]);
    adminKey = (
      await commandJson<{ key: string }>(database.address, [
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
    if (npxFolder) rmSync(npxFolder, { recursive: true, force: true });
  });

  it('the real npx finds menu-api in this repository, as the manual spells it', async () => {
    const result = await runBlock('npx menu-api --version', cleanEnvironment());
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // npm's own start takes seconds when the suite shares two cores.
  }, 60_000);

  it('finds its shell blocks; each skipped one says why; the placeholders are documented', () => {
    expect(RUN.filter((block) => block.page === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(RUN.length).toBeGreaterThanOrEqual(8);
    for (const block of BLOCKS.filter((found) => found.skip !== undefined))
      expect(
        block.skip!.length,
        `the skip marker before ${block.page} line ${block.line} gives no reason`,
      ).toBeGreaterThan(5);
    for (const page of ['README.md', INDEX]) {
      expect(readPage(page), page).toContain('How to read the examples');
      expect(readPage(page), page).toContain('`$ADMIN_KEY`');
    }
    // Every page with blocks to run says where its placeholders are explained.
    for (const page of new Set(RUN.map((block) => block.page)))
      if (page.startsWith('docs/') && page !== INDEX)
        expect(readPage(page), page).toContain('(README.md#how-to-read-the-examples)');
    // One spelling of the command line: `npx menu-api` (bare `menu-api` only when installed globally).
    for (const block of BLOCKS)
      expect(block.code, `${block.page} line ${block.line}`).not.toMatch(/(?<![\w/.-])(?<!npx )menu-api\s/m);
  });

  it('runs every page of docs/: the index lists each one', () => {
    const pages = readdirSync(join(REPOSITORY, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`);
    expect(pages.length).toBeGreaterThanOrEqual(10);
    for (const page of pages) expect(PAGES, `${INDEX} does not link ${page}`).toContain(page);
  });

  it('ships examples/menu.json and menu.csv as `npm run examples` makes them, and both import cleanly', async () => {
    for (const [name, text] of Object.entries(exampleFiles())) {
      const committed = readFileSync(join(REPOSITORY, 'examples', name), 'utf8');
      expect(sameContent(name, committed, text), `examples/${name}: run npm run examples`).toBe(true);
    }
    const shop = await commandJson<{ id: number }>(database.address, [
      'dispensary',
      'create',
      '--name',
      'Template Test',
    ]);
    for (const file of ['examples/menu.json', 'examples/menu.csv']) {
      const report = await commandJson<{ items: number }>(database.address, [
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

  it('runs every shell block that calls the API or the CLI, page by page in order, and each succeeds', async () => {
    const env = cleanEnvironment({
      DATABASE_URL: database.address,
      MENU_API_URL: server.url,
      ADMIN_KEY: adminKey,
      WEBHOOK_KEY,
      PATH: `${npxFolder}${delimiter}${process.env.PATH ?? ''}`,
    });
    const failures: string[] = [];
    for (const block of RUN) {
      const code = block.code.replaceAll(README_ADDRESS, server.url);
      const result = await runBlock(code, env);
      if (result.code !== 0)
        failures.push(
          `${block.page} line ${block.line} exited ${result.code}:\n${code}\n${result.stdout}${result.stderr}`,
        );
    }
    expect(failures).toEqual([]);
  }, 420_000);
});
