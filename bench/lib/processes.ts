/** Process plumbing for the benchmark: the repository root, pinned children, free ports, /proc readings, a current build. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Whether `taskset` can pin processes here (util-linux, Linux only). */
export const TASKSET = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The server and the ceiling run on core 0; the load generator on core 1. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return TASKSET ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A long run's progress log: each line prefixed with the seconds since `started`. */
export function progressLog(label = '', started = Date.now()): (message: string) => void {
  return (message) =>
    console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${label}${message}`);
}

/** Peak resident set size of a process, in bytes (VmHWM). */
export function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Current resident set size of a process, in bytes (VmRSS). */
export function currentRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** CPU time a process has used (user + system, all threads), ms; clock ticks of 10 ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Wall and CPU time (this process's user + system) of `work`, ms. */
export async function timed(work: () => Promise<unknown>): Promise<[number, number]> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return [performance.now() - started, (used.user + used.system) / 1000];
}

/**
 * Builds dist/ unless it was built from the sources there are now (scripts/build.mjs --if-stale): every
 * benchmark measures the built server.
 */
export function ensureBuilt(log: (message: string) => void): void {
  log('checking the build (scripts/build.mjs --if-stale)');
  execFileSync('node', ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * The start of a benchmark run: when it started, the load average then (reported beside the figures),
 * its progress log, and a current build.
 */
export function startRun(label = ''): {
  started: number;
  loadAtStart: number[];
  log: (message: string) => void;
} {
  const started = Date.now();
  const loadAtStart = loadavg();
  const log = progressLog(label, started);
  ensureBuilt(log);
  return { started, loadAtStart, log };
}
