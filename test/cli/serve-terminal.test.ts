import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readableLogLine } from '../../src/cli/log-format.js';
import { DEMO } from '../../src/demo/seed.js';
import { assertBuilt, BIN, cleanEnvironment, REPOSITORY } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/runtime.js';

describe('readable log lines on a terminal (src/cli/log-format.ts)', () => {
  it('a request line reads as time, level, method, route, status and time taken, then the rest', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 10, 26, 10, 0, 0, 5),
      pid: 1,
      hostname: 'vm',
      reqId: 'r-1',
      method: 'GET',
      route: '/menu',
      status: 200,
      ms: 3.1,
      address: '127.0.0.1',
      username: 'demo',
      msg: 'request',
    });
    expect(readableLogLine(line)).toMatch(
      /^\d\d:\d\d:\d\d\.005 INFO {2}GET \/menu 200 3\.1 ms address=127\.0\.0\.1 username=demo reqId=r-1$/,
    );
  });

  it('any other line is its message and fields; a line that is not JSON is kept', () => {
    const line = JSON.stringify({ level: 40, time: 0, msg: 'redis is gone', limit: 'address' });
    expect(readableLogLine(line)).toMatch(/^\d\d:\d\d:\d\d\.000 WARN {2}redis is gone limit=address$/);
    expect(readableLogLine('plain text')).toBe('plain text');
  });
});

describe('npm start on a terminal: one banner, then readable request lines', () => {
  const folder = temporaryDirectory();
  let child: ChildProcess | undefined;
  let output = '';
  beforeAll(() => assertBuilt());
  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    folder.remove();
  });

  const waitFor = (pattern: RegExp, what: string) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within 60 s:\n${output}`)), 60_000);
      const check = () => {
        const found = pattern.exec(output);
        if (!found) return;
        clearTimeout(timer);
        child!.stdout!.off('data', check);
        resolve(found);
      };
      child!.stdout!.on('data', check);
      check();
    });

  it('prints the block (docs, health, CLI, curl for menu, store and inventory) before any request line', async () => {
    const command = [
      process.execPath,
      BIN,
      '--db',
      join(folder.path, 'menu.db'),
      'serve',
      '--demo',
      '--port',
      '0',
    ]
      .map((part) => `'${part}'`)
      .join(' ');
    // util-linux `script` gives the server a pseudo-terminal as stdout, as `npm start` in a shell has.
    child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: REPOSITORY,
      env: cleanEnvironment(),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const [, url] = await waitFor(/never use --demo with real dispensaries\.\r?\n-+/, 'banner').then(() =>
      waitFor(/listening on (http:\/\/\S+)/, 'URL'),
    );
    const headers = { store: DEMO.token, username: DEMO.username, password: DEMO.password };
    expect((await fetch(`${url}/menu`, { headers })).status).toBe(200);
    await waitFor(/INFO {2}GET \/menu 200 [\d.]+ ms/, 'readable request line');

    const banner = output.slice(output.indexOf('Dispensary Menu API'), output.indexOf('GET /menu 200'));
    for (const expected of [
      `${url}/docs`,
      `${url}/healthz`,
      'npx menu-api --help',
      `curl -s ${url}/menu -H 'content-type: application/json'`,
      `curl -s ${url}/store -H 'store: ${DEMO.token}'`,
      `curl -s ${url}/inventory -H 'store: ${DEMO.token}'`,
      `${url}/m/demo`,
      `${url}/board/demo`,
      `<script src="${url}/embed.js" async></script>`,
    ])
      expect(banner).toContain(expected);
    expect(output).not.toContain('{"level"');
  });
});
