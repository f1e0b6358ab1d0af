import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { formBHeaders, rawRequest } from '../helpers/http.js';
import type { Seed } from '../helpers/runtime.js';
import { seedDatabase } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';

assertBuilt();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids of the workers that logged a completed request, from the servers' JSON log lines. */
function answeringPids(output: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    // A request log line of a worker names the route (or URL) it answered.
    if (!line.startsWith('{"level"') || !line.includes('"/menu"')) continue;
    pids.add((JSON.parse(line) as { pid: number }).pid);
  }
  return pids;
}

/**
 * The primary's start banner (pretty-printed JSON) from the output, which the workers' log lines
 * share: one may follow it in the same chunk, so the banner ends at its own closing brace.
 */
function startBanner(output: string): { workers: number } {
  const start = output.indexOf('{\n');
  return JSON.parse(output.slice(start, output.indexOf('\n}', start) + 2)) as { workers: number };
}

describe('menu-api serve --workers 2', () => {
  const database = freshDatabase();
  let server: ServerProcess;
  let seed: Seed;
  beforeAll(async () => {
    seed = await seedDatabase(database.address);
    server = await startServe(database.address, ['--workers', '2', '--log-level', 'info']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const workerPids = () =>
    [...server.output().matchAll(/worker (\d+) starting/g)].map((match) => Number(match[1]));
  const menu = () =>
    rawRequest(server.url, { method: 'GET', path: '/menu', headers: Object.entries(formBHeaders(seed)) });

  it('runs two workers on one port, and both answer', async () => {
    expect(workerPids()).toHaveLength(2);
    expect(startBanner(server.output()).workers).toBe(2);
    // Each request on its own connection: the primary hands connections to the workers in turn.
    for (let attempt = 0; attempt < 40 && answeringPids(server.output()).size < 2; attempt++) {
      const response = await menu();
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body).map((item: { id: number }) => item.id)).toEqual([1, 3, 7]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect([...answeringPids(server.output())].sort()).toEqual([...workerPids()].sort());
  });

  it.runIf(process.platform === 'linux')(
    "starts its workers with glibc's mmap threshold fixed, so scrypt's 16 MiB are given back when freed",
    () => {
      for (const pid of workerPids()) {
        const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environment).toContain('MALLOC_MMAP_THRESHOLD_=4194304');
      }
    },
  );

  it('replaces a worker that dies, and keeps answering meanwhile', async () => {
    const [victim] = workerPids();
    process.kill(victim!, 'SIGKILL');
    await until(
      () => server.output().includes(`worker ${victim} exited (signal SIGKILL)`),
      5_000,
      'the exit',
    );
    expect((await menu()).status).toBe(200);
    await until(() => workerPids().length === 3, 5_000, 'a new worker');
    const replacement = workerPids()[2]!;
    await until(
      () => server.output().includes(`"pid":${replacement},`) && server.output().includes('Server listening'),
      15_000,
      'the new worker to listen',
    );
    expect((await menu()).status).toBe(200);
  });

  it('SIGTERM to the primary stops every worker, then the primary, with exit code 0', async () => {
    const pids = workerPids().filter(alive);
    expect(pids).toHaveLength(2);
    const exit = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    await server.stop();
    expect(await exit).toBe(0);
    await until(() => pids.every((pid) => !alive(pid)), 5_000, 'the workers to exit');
  });
});
