import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, commandJson, type ServerProcess, startServe } from '../helpers/cli.js';
import { formBHeaders } from '../helpers/http.js';
import { bigMenu, type HttpAnswer, send } from '../helpers/process.js';
import { temporaryDirectory } from '../helpers/runtime.js';
import { seedDispensaryAndKey } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';

const PRLIMIT = (() => {
  if (process.platform !== 'linux') return false;
  try {
    execFileSync('sh', ['-c', 'command -v prlimit'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * The disk fills up while writes are under way (SQLite). Unprivileged, the same for root and anyone:
 * `prlimit --fsize` on the running server, so that no file of it may grow any more (EFBIG, which
 * SQLite reports like a full disk), then lifted again. Writes get 200 or 503, never anything else;
 * reads are answered 200 throughout; every menu is wholly one full sync, and the audit log holds
 * exactly the writes that were answered 200.
 */
describe.skipIf(!PRLIMIT)('a disk that fills up during writes (SQLite)', () => {
  let server: ServerProcess | undefined;
  let folder: ReturnType<typeof temporaryDirectory>;

  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    folder?.remove();
  });

  it('writes get 503 while it is full, reads go on, nothing is half-written', {
    timeout: 60_000,
  }, async () => {
    folder = temporaryDirectory();
    const db = join(folder.path, 'menu.db');
    const seed = await seedDispensaryAndKey(db);
    server = await startServe(db);
    const url = server.url;
    const pid = String(server.child.pid);
    const headers = formBHeaders(seed);
    const admin = (method: string, path: string, body: unknown): Promise<HttpAnswer> =>
      send(`${url}/admin/v1/dispensaries/${seed.dispensaryId}${path}`, {
        method,
        headers: { authorization: `Bearer ${seed.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        timeoutMs: 30_000,
      });
    /** A full sync of `round`: every item's name says which round it belongs to. */
    const menuOf = (round: number, count: number) =>
      (bigMenu(count, 2, 50) as { id: number }[]).map((item) => ({
        ...item,
        name: `Round ${round} #${item.id}`,
      }));
    expect((await admin('PUT', '/menu', menuOf(0, 40))).status).toBe(200);

    const unexpected: string[] = [];
    const statuses = { ok: 0, unavailable: 0 };
    let reads = 0;
    let running = true;
    const reader = async () => {
      while (running) {
        const answer = await send(`${url}/menu`, { headers, timeoutMs: 30_000 }).catch(
          (error: Error) => ({ status: 0, body: error.message, headers: {} }) as HttpAnswer,
        );
        if (answer.status === 200) reads++;
        else unexpected.push(`read ${answer.status} ${answer.body.slice(0, 200)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    let round = 0;
    const writer = async () => {
      while (running) {
        round++;
        // Alternately a full sync of a growing menu and a stock batch over every price entry.
        const answer =
          round % 2
            ? await admin('PUT', '/menu', menuOf(round, 40 + round * 20))
            : await admin(
                'PATCH',
                '/inventory',
                Array.from({ length: 40 }, (_, index) => ({
                  item_id: index + 1,
                  unit: 'gram',
                  amount: 1,
                  stock: round,
                })),
              );
        if (answer.status === 200) statuses.ok++;
        else if (answer.status === 503 && JSON.parse(answer.body).error.code === 'unavailable')
          statuses.unavailable++;
        else unexpected.push(`write ${answer.status} ${answer.body.slice(0, 200)}`);
      }
    };
    const clients = [reader(), reader(), writer()];
    /** Until `more` further writes were answered `status` and reads went on meanwhile. */
    const answered = async (status: keyof typeof statuses, more: number, what: string) => {
      const [wanted, readsBefore] = [statuses[status] + more, reads];
      await until(() => statuses[status] >= wanted && reads > readsBefore, 30_000, what);
    };
    try {
      for (let turn = 0; turn < 2; turn++) {
        await answered('ok', 2, 'writes that succeed');
        // Full: no file may grow past its size now.
        const largest = Math.max(
          ...['', '-wal'].map((suffix) => (existsSync(db + suffix) ? statSync(db + suffix).size : 0)),
        );
        execFileSync('prlimit', ['--pid', pid, `--fsize=${largest + 4096}:`]);
        await answered('unavailable', 1, 'writes refused with 503 while the disk is full');
        execFileSync('prlimit', ['--pid', pid, '--fsize=unlimited:']);
      }
      await answered('ok', 2, 'writes that succeed again');
    } finally {
      execFileSync('prlimit', ['--pid', pid, '--fsize=unlimited:']);
      running = false;
      await Promise.all(clients);
    }

    expect(unexpected).toEqual([]);
    expect(statuses.unavailable).toBeGreaterThan(0);
    expect(statuses.ok).toBeGreaterThan(0);
    expect(reads).toBeGreaterThan(0);
    expect(server.child.exitCode).toBeNull();

    // Wholly one full sync: every name of one round, as many items as that round sent.
    const menu = JSON.parse((await send(`${url}/menu`, { headers })).body) as { name: string }[];
    const rounds = new Set(menu.map((item) => item.name.split(' #')[0]));
    expect(rounds.size, [...rounds].join()).toBe(1);
    const kept = Number([...rounds][0]!.split(' ')[1]);
    expect(menu).toHaveLength(kept === 0 ? 40 : 40 + kept * 20);
    // Exactly the writes answered 200 are in the audit log (a refused write left no trace).
    const audit = await commandJson<{ action: string }[]>(db, [
      'audit',
      '--dispensary',
      String(seed.dispensaryId),
    ]);
    const writes = audit.filter(
      (entry) => entry.action === 'menu.replace' || entry.action === 'inventory.update',
    );
    expect(writes).toHaveLength(statuses.ok + 1);
  });
});
