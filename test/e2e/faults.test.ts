import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyDatabase } from '../../src/services/db-copy.js';
import {
  assertBuilt,
  BIN,
  cleanEnvironment,
  REPOSITORY,
  type ServerProcess,
  spawnCli,
  startServe,
} from '../helpers/cli.js';
import { bigMenu, send, waitForExit } from '../helpers/process.js';
import { onSqlite, temporaryDirectory } from '../helpers/runtime.js';
import { seedDispensaryAndKey, withServices } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';

/**
 * Faults with real processes: a database file that disappears, a full disk, a read-only file system,
 * `kill -9` in the middle of a write, and a server that cannot start. The answers are 503 with a JSON
 * error and Retry-After (never a hang, a crash or a 500), the server recovers by itself, a killed write
 * leaves the previous menu whole, and a failed start says why in one line with exit code 1.
 */

const hasCommand = (name: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): for the read-only test only. */
function canMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || !hasCommand('mount')) return false;
  const probe = temporaryDirectory();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe.path], { stdio: 'ignore' });
    execFileSync('umount', [probe.path], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    probe.remove();
  }
}

const PRLIMIT = process.platform === 'linux' && hasCommand('prlimit');
const MOUNT = onSqlite && canMount();

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `menu-api ARGS` through `sh -c` (for ulimit), waiting for it to exit. */
function runShell(prefix: string, args: string[], timeoutMs = 20_000): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${prefix} exec "$0" "$@"`, process.execPath, BIN, ...args], {
      cwd: REPOSITORY,
      env: cleanEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`menu-api ${args.join(' ')} did not exit within ${timeoutMs} ms:\n${stdout}${stderr}`),
      );
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Node's own warnings (a deprecation in a dependency) are not our message, nor the notice that serve
 * created the (new) database file before it failed.
 */
const ourLines = (text: string) =>
  text
    .split('\n')
    .filter(
      (line) => line.trim() !== '' && !/^\(node:\d+\)|^\(Use `node|^Created a new database at /.test(line),
    );

/** One clear line on stderr, exit code 1, no stack trace. */
function expectOneLineFailure(result: Finished, pattern: RegExp): void {
  expect(result.code, result.stderr + result.stdout).toBe(1);
  const lines = ourLines(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: The server could not start: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr + result.stdout).not.toMatch(/^\s+at /m);
}

function expectUnavailable(answer: { status: number; headers: Record<string, unknown>; body: string }): void {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['retry-after']).toMatch(/^\d+$/);
  expect(JSON.parse(answer.body).error.code).toBe('unavailable');
}

/**
 * What a test may start and make (a server, a temporary folder), for the describe that calls this: the
 * server is stopped and the folder removed after each test.
 */
function stoppedAndRemovedAfterEach(): { server?: ServerProcess; folder?: { path: string; remove(): void } } {
  const made: { server?: ServerProcess; folder?: { path: string; remove(): void } } = {};
  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await made.server?.stop();
    made.server = undefined;
    made.folder?.remove();
  });
  return made;
}

describe.skipIf(!onSqlite)('SQLite faults while serving', () => {
  const made = stoppedAndRemovedAfterEach();

  /** A seeded database with a credential, served; returns how to read the menu (Form B) and write it. */
  async function serveSeeded(db: string, extra: string[] = []) {
    const seed = await seedDispensaryAndKey(db);
    made.server = await startServe(db, extra);
    const url = made.server.url;
    const read = () =>
      send(`${url}/menu`, {
        headers: { store: seed.token, username: seed.username, password: seed.password },
      });
    const write = (items: unknown[]) =>
      send(`${url}/admin/v1/dispensaries/${seed.dispensaryId}/menu`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${seed.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(items),
      });
    return { seed, url, read, write };
  }

  it('a deleted database file gives 503, then the server recovers when the file is moved back or restored', async () => {
    made.folder = temporaryDirectory();
    const db = join(made.folder.path, 'menu.db');
    const { url, read, write } = await serveSeeded(db);
    expect((await write(bigMenu(3, 1, 10))).status).toBe(200);
    expect((await read()).status).toBe(200);
    const backup = join(made.folder.path, 'backup.db');
    // What `menu-api db copy` runs, in this process: the backup is set-up, not the CLI under test.
    await copyDatabase(db, backup);
    const files = ['', '-wal', '-shm'].filter((suffix) => existsSync(db + suffix));

    // Gone (moved away): every request is a quick 503, readiness too; the process stays up.
    mkdirSync(join(made.folder.path, 'away'));
    for (const suffix of files) renameSync(db + suffix, join(made.folder.path, 'away', `menu.db${suffix}`));
    await until(async () => (await read()).status === 503, 5_000, '503 after the file went away');
    expectUnavailable(await read());
    expectUnavailable(await write(bigMenu(2, 1, 10)));
    expectUnavailable(await send(`${url}/readyz`));
    expect((await send(`${url}/healthz`)).status).toBe(200);

    // Moved back: served again, without a restart.
    for (const suffix of files) renameSync(join(made.folder.path, 'away', `menu.db${suffix}`), db + suffix);
    await until(async () => (await read()).status === 200, 5_000, 'recovery after moving back');
    expect(JSON.parse((await read()).body)).toHaveLength(3);

    // Deleted for good, then a backup copied in: a different file, which the server reopens.
    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
    await until(async () => (await read()).status === 503, 5_000, '503 after deletion');
    execFileSync('cp', [backup, db]);
    await until(async () => (await read()).status === 200, 5_000, 'recovery after restore');
    expect((await send(`${url}/readyz`)).status).toBe(200);
    expect((await write(bigMenu(5, 1, 10))).status).toBe(200);
    expect(JSON.parse((await read()).body)).toHaveLength(5);
    // The write went to the restored file, where a new connection to the path (the CLI's) sees it.
    const listed = await withServices(db, ({ dispensaries }) => dispensaries.list());
    expect(listed[0]!.itemCount).toBe(5);
    expect(made.server!.child.exitCode).toBeNull();
  });

  it.skipIf(!PRLIMIT)(
    'a full disk gives 503 on writes while reads go on, and writes work again once there is space',
    async () => {
      made.folder = temporaryDirectory();
      const db = join(made.folder.path, 'menu.db');
      const { read, write } = await serveSeeded(db);
      expect((await write(bigMenu(20, 1, 10))).status).toBe(200);
      const pid = String(made.server!.child.pid);
      // RLIMIT_FSIZE: no file of the process may grow past its current size (EFBIG, as on a full disk).
      const largest = Math.max(
        ...['', '-wal'].map((suffix) => (existsSync(db + suffix) ? statSync(db + suffix).size : 0)),
      );
      execFileSync('prlimit', ['--pid', pid, `--fsize=${largest + 4096}:`]);
      // 500 items grow the WAL by about 1 MB, far past the 4 KiB the limit leaves.
      const larger = bigMenu(500);
      try {
        const refused = await write(larger);
        expectUnavailable(refused);
        expect(refused.body).not.toMatch(/SQLITE|stack/);
        // Reads do not need the disk to grow.
        const menu = await read();
        expect(menu.status).toBe(200);
        expect(JSON.parse(menu.body)).toHaveLength(20);
      } finally {
        execFileSync('prlimit', ['--pid', pid, '--fsize=unlimited:']);
      }
      expect((await write(larger)).status).toBe(200);
      expect(JSON.parse((await read()).body)).toHaveLength(500);
      expect(made.server!.child.exitCode).toBeNull();
    },
  );
});

/** Polls the -wal file until the writer has put `bytes` into it (its transaction is under way). */
async function killWhenWalGrows(child: ChildProcess, db: string, bytes: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the writer finished (exit ${child.exitCode}) before it could be killed`);
    const size = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
    if (size >= bytes) {
      child.kill('SIGKILL');
      await waitForExit(child);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the write never started');
}

describe.skipIf(!onSqlite)('kill -9 in the middle of a write', () => {
  const made = stoppedAndRemovedAfterEach();

  const PREVIOUS = bigMenu(7, 2, 20);

  /**
   * The names of dispensary 1's menu, read by a new connection to the file (what `menu export` does,
   * without a CLI process): after a kill -9 it is the one that recovers the database, as a restart would.
   */
  function menuNames(db: string): Promise<string[]> {
    return withServices(db, async ({ menus }) => (await menus.items(1)).map((item) => item.name));
  }

  it('during `menu import` of a very large file: the previous menu is intact after restart', async () => {
    made.folder = temporaryDirectory();
    const db = join(made.folder.path, 'menu.db');
    const seed = await seedDispensaryAndKey(db);
    // The previous menu, written in this process: the import under test is the one killed below.
    await withServices(db, ({ menus }) => menus.replace(seed.dispensaryId, menus.validate(PREVIOUS)));
    const before = await menuNames(db);
    expect(before).toHaveLength(7);

    const hugeFile = join(made.folder.path, 'huge.json');
    writeFileSync(hugeFile, JSON.stringify(bigMenu(20_000, 5, 400)));
    const importer = spawnCli(['--db', db, 'menu', 'import', '--dispensary', '1', hugeFile], 'ignore');
    // The largest menu allowed writes about 56 MB of WAL in one transaction, for most of a second: 2 MB
    // in, it is well under way, and the kill lands long before the commit even on a busy machine (12,000
    // items left a quarter of a second; smaller menus commit before a busy poller sees 2 MB).
    await killWhenWalGrows(importer, db, 2 * 1024 * 1024);
    expect(importer.signalCode).toBe('SIGKILL');

    expect(await menuNames(db)).toEqual(before);
    // And the database is sound: a server starts on it and serves that menu.
    made.server = await startServe(db);
    expect((await send(`${made.server.url}/readyz`)).status).toBe(200);
  }, 120_000);

  it('during a full sync (PUT): the previous menu is intact after restart', async () => {
    made.folder = temporaryDirectory();
    const db = join(made.folder.path, 'menu.db');
    const seed = await seedDispensaryAndKey(db);
    made.server = await startServe(db);
    const put = (items: unknown[]) =>
      send(`${made.server!.url}/admin/v1/dispensaries/${seed.dispensaryId}/menu`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${seed.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(items),
        timeoutMs: 60_000,
      });
    expect((await put(PREVIOUS)).status).toBe(200);
    const before = await menuNames(db);

    // About 49 MB of WAL in one transaction, written for half a second: room for the kill 2 MB in.
    const pending = put(bigMenu(18_000, 4, 400));
    pending.catch(() => {});
    await killWhenWalGrows(made.server.child, db, 2 * 1024 * 1024);
    await expect(pending).rejects.toThrow();
    made.server = undefined;

    expect(await menuNames(db)).toEqual(before);
    made.server = await startServe(db);
    const menu = await send(`${made.server.url}/admin/v1/dispensaries/${seed.dispensaryId}/menu`, {
      headers: { authorization: `Bearer ${seed.key}` },
    });
    expect(menu.status).toBe(200);
    expect((JSON.parse(menu.body) as { name: string }[]).map((item) => item.name)).toEqual(before);
  }, 120_000);
});

describe.skipIf(!onSqlite)('a server that cannot start says why in one line, with exit code 1', () => {
  const made = stoppedAndRemovedAfterEach();

  it('a database path whose parent is a regular file (permission-like: cannot create)', async () => {
    made.folder = temporaryDirectory();
    const file = join(made.folder.path, 'not-a-folder');
    writeFileSync(file, 'x');
    const result = await runShell('', ['--db', join(file, 'menu.db'), 'serve', '--port', '0']);
    expectOneLineFailure(result, /cannot be created there: .*(ENOTDIR|EEXIST)/);
  });

  it('a full disk at start (no file may grow: ulimit -f 0)', async () => {
    made.folder = temporaryDirectory();
    const result = await runShell('ulimit -f 0 &&', [
      '--db',
      join(made.folder.path, 'menu.db'),
      'serve',
      '--port',
      '0',
    ]);
    expectOneLineFailure(result, /cannot be written: .*Is the disk full/);
  });

  it('a database path that is a folder, and a file that is not a database', async () => {
    made.folder = temporaryDirectory();
    const directory = join(made.folder.path, 'menu.db');
    mkdirSync(directory);
    const garbage = join(made.folder.path, 'garbage.db');
    writeFileSync(garbage, 'this is not a database, just some text long enough to have a header'.repeat(20));
    // Two processes at once: each waits mostly on its own start.
    const [onFolder, onGarbage] = await Promise.all([
      runShell('', ['--db', directory, 'serve', '--port', '0']),
      runShell('', ['--db', garbage, 'serve', '--port', '0']),
    ]);
    expectOneLineFailure(onFolder, /cannot be opened: .*SQLITE_CANTOPEN/);
    expectOneLineFailure(onGarbage, /is not a usable SQLite database/);
  });

  // As root, file modes do not stop anyone; a read-only mount does. (A file system cannot be remounted
  // read-only under an open writer, so this is the start-time case; at run time a moved or deleted
  // file is the test above, and SQLite's own SQLITE_READONLY_* answers map to 503 the same way.)
  it.skipIf(!MOUNT)('a database on a read-only file system', async () => {
    made.folder = temporaryDirectory();
    const source = join(made.folder.path, 'source');
    const readOnly = join(made.folder.path, 'read-only');
    mkdirSync(readOnly);
    await seedDispensaryAndKey(join(source, 'menu.db'));
    execFileSync('mount', ['--bind', source, readOnly]);
    try {
      execFileSync('mount', ['-o', 'remount,bind,ro', readOnly]);
      expectOneLineFailure(
        await runShell('', ['--db', join(readOnly, 'menu.db'), 'serve', '--port', '0']),
        /cannot be (opened|written): .*SQLITE_(CANTOPEN|READONLY)/,
      );
    } finally {
      execFileSync('umount', [readOnly]);
    }
  });

  it('a port in use, on the public or the ops listener', async () => {
    made.folder = temporaryDirectory();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as { port: number }).port);
    try {
      // Two processes at once (each on a database of its own): each waits mostly on its own start.
      const [onPublic, onOps] = await Promise.all([
        runShell('', ['--db', join(made.folder.path, 'public.db'), 'serve', '--port', port]),
        runShell('', ['--db', join(made.folder.path, 'ops.db'), 'serve', '--port', '0', '--ops-port', port]),
      ]);
      expectOneLineFailure(onPublic, /in use by another process/);
      expectOneLineFailure(onOps, /in use by another process/);
    } finally {
      blocker.close();
    }
  });
});
