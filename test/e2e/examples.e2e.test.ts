import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/demo/seed.js';
import { assertBuilt, cleanEnvironment, REPOSITORY, type ServerProcess, startServe } from '../helpers/cli.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

/**
 * The examples in examples/ run as an integrator would run them (through tsx, importing the package's
 * `dispensary-menu-api/client` export), against the demo server started as `menu-api serve --demo`.
 */
const TSX = ['--import', 'tsx'];

function runExample(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...TSX, join(REPOSITORY, 'examples', file), ...args],
      { cwd: REPOSITORY, env: cleanEnvironment(), timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('examples/ against the demo server', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  // The demo's console key (scope all): the demo server makes it.
  const adminKey = DEMO.adminKey;

  beforeAll(async () => {
    assertBuilt();
    database = await testDatabase();
    server = await startServe(database.address, ['--demo']);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.cleanup();
  });

  it('menu-table prints the demo menu as a table, in Form B and in Form A', async () => {
    const formB = await runExample('menu-table.ts', ['--base-url', server.url]);
    expect(formB.stderr).toBe('');
    expect(formB.code).toBe(0);
    expect(formB.stdout).toMatch(/^Demo Collective: \d+ items \(Form B, prices in USD\)/);
    expect(formB.stdout).toMatch(/^ID\s+NAME\s+BRAND\s+TYPE\s+PRICES$/m);
    expect(formB.stdout).toMatch(
      /^1\s+Blue Dream\s+Emerald Farms\s+Flower\s+1 g \$12\.00 \(140 left\), 3\.5 g \$35\.00/m,
    );

    const formA = await runExample('menu-table.ts', [
      '--base-url',
      server.url,
      '--form',
      'A',
      '--username',
      DEMO.username,
      '--password',
      DEMO.password,
      '--token',
      DEMO.token,
    ]);
    expect(formA.code).toBe(0);
    expect(formA.stdout).toMatch(/\(Form A, prices in USD\)/);
    expect(formA.stdout).toMatch(/^1\s+Blue Dream\s+Emerald Farms\s+Flower\s+1 g \$12\.00, 3\.5 g \$35\.00/m);
  });

  it('menu-table says what went wrong, with the request id, when the credentials are wrong', async () => {
    const result = await runExample('menu-table.ts', ['--base-url', server.url, '--password', 'wrong']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^401 invalid_credentials: .+ \(request [0-9a-f-]{36}\)$/m);
  });

  it('v1-search reads every page of a filtered, sorted Form v1 query; a bad sort is the server’s 400', async () => {
    const result = await runExample('v1-search.ts', [
      '--base-url',
      server.url,
      '--product-type',
      'Flower',
      '--sort',
      'price',
      '--page-size',
      '2',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const total = Number(/^(\d+) items match$/.exec(lines[0]!)?.[1]);
    expect(lines).toHaveLength(total + 1);
    expect(lines[1]).toMatch(/^page 1: \d+ .+ from \$\d+\.\d\d$/);
    expect(lines.at(-1)).toMatch(new RegExp(`^page ${Math.ceil(total / 2)}: `));
    const prices = lines.slice(1).map((line) => Number(/\$([\d.]+)$/.exec(line)?.[1]));
    expect(prices).toEqual([...prices].sort((a, b) => a - b));

    const bad = await runExample('v1-search.ts', ['--base-url', server.url, '--sort', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^400 invalid_request: .*sort.* \(request [0-9a-f-]{36}\)$/m);
  });

  it('poll-inventory prints the stock changes made while it polls, then stops after --iterations', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        ...TSX,
        join(REPOSITORY, 'examples', 'poll-inventory.ts'),
        '--base-url',
        server.url,
        '--iterations',
        '4',
        '--interval-ms',
        '600',
      ],
      { cwd: REPOSITORY, env: cleanEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let changed = false;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!changed && stdout.includes('poll 1:')) {
        changed = true;
        // The point of sale sells two grams of Blue Dream and the last Sour Diesel eighth.
        void fetch(`${server.url}/admin/v1/dispensaries/1/inventory`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify([
            { item_id: 1, unit: 'gram', amount: 1, stock: 138 },
            { item_id: 3, unit: 'ounce', amount: 0.125, stock: 0 },
          ]),
        }).then((response) => expect(response.status).toBe(200));
      }
    });
    const code = await exited;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^poll 1: \d+ price entries in stock tracking$/);
    expect(stdout).toContain('item 1 1 gram: stock 140 -> 138');
    expect(stdout).toContain('item 3 0.125 ounce: stock 30 -> 0 (out of stock)');
    // Four polls, and each reported change once.
    expect(lines.filter((line) => line.startsWith('poll 4:')).length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes('stock 140 -> 138'))).toHaveLength(1);
  });
});
