/**
 * `npx tsx bench/instructions.ts [workload ...]`: the instructions a read costs, counted by valgrind's
 * callgrind, for the server and for its ceiling answering the same bytes. On a shared machine requests
 * per second and CPU time move by tens of percent between runs (bench/PROFILE.md, "The host is
 * noisy"); the count of instructions a request executes does not depend on what else runs, so a change
 * of 2-3 % to the request path shows here when no timed run can show it (round thirty-three).
 *
 * Each side (the server, `bin/menu-api serve` of the production build, and bench/lib/ceiling-server.ts
 * serving the answer the server gave) runs under callgrind with one file per thread. Per workload:
 * a warm-up of twice that, then rounds of INSTRUCTIONS_REQUESTS requests (4 kept-alive connections, from this
 * process, which callgrind does not count), each between a zeroing and a dump of the counters. The
 * main thread's instructions are the request path; the other threads' (V8's collector helpers) are
 * shown apart, as they follow when a collection happens to fall. The kernel's work (the `writev`
 * itself) is not counted on either side. Workloads: b-gzip, b-identity, a-gzip, v1-gzip, 403 (default:
 * b-gzip, v1-gzip, 403). Knobs: INSTRUCTIONS_REQUESTS (default 6000), INSTRUCTIONS_ROUNDS (3).
 * Needs valgrind (`apt-get install valgrind`); a run takes about a minute per workload and side.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Ceiling, startCeiling } from './lib/ceiling.js';
import { generateDatabase } from './lib/data.js';
import { fetchRaw, statusOver } from './lib/http.js';
import { ensureBuilt, progressLog } from './lib/processes.js';
import { menuReads, type ReadWorkload } from './lib/read-workloads.js';
import { type ServerUnderTest, startMenuServer } from './lib/server.js';

const REQUESTS = Number(process.env.INSTRUCTIONS_REQUESTS ?? 6000);
const ROUNDS = Number(process.env.INSTRUCTIONS_ROUNDS ?? 3);
/** Requests before the first round: until V8 has compiled the path (its compiler threads go quiet). */
const WARM_UP = 2 * REQUESTS;
const CONNECTIONS = 4;
const log = progressLog();

try {
  execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
} catch {
  console.error(
    'bench/instructions.ts needs valgrind (callgrind_control not found): apt-get install valgrind',
  );
  process.exit(1);
}

ensureBuilt(log);
const work = mkdtempSync(join(tmpdir(), 'menu-api-instructions-'));
const db = await generateDatabase(join(work, 'menu.db'), { sizes: [500], scale: 0 });
const m500 = db.sized[0]!;

type Workload = ReadWorkload;
const WORKLOADS = menuReads(db.credential, m500);
const chosen = process.argv.slice(2);
const names = chosen.length > 0 ? chosen : ['b-gzip', 'v1-gzip', '403'];
for (const name of names) {
  if (!WORKLOADS[name]) throw new Error(`no workload ${name}; one of ${Object.keys(WORKLOADS).join(', ')}`);
}

/** valgrind running node under callgrind, one output file per thread and dump, in `directory`. */
const callgrind = (directory: string) => [
  'valgrind',
  '--quiet',
  '--tool=callgrind',
  // V8 writes and rewrites machine code: without this valgrind may run stale translations.
  '--smc-check=all',
  '--separate-threads=yes',
  `--callgrind-out-file=${join(directory, '%p.out')}`,
];

/** `requests` requests of `workload` over CONNECTIONS kept-alive connections, each answered as it must be. */
async function load(url: string, workload: Workload, requests: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const expected = workload.status ?? 200;
  let sent = 0;
  const next = async (): Promise<void> => {
    while (sent < requests) {
      sent++;
      const status = await statusOver(agent, `${url}${workload.path ?? '/menu'}`, workload.request);
      // A run of refusals (a wrong credential, a limit) would count the wrong path's instructions.
      if (status !== expected) throw new Error(`${workload.name}: answered ${status}, not ${expected}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, next));
  } finally {
    agent.destroy();
  }
}

/** The instructions of a dump's files (one per thread): the main thread's, and the other threads'. */
function dumped(directory: string, pid: number, seen: Set<string>): { main: number; helpers: number } {
  let main = 0;
  let helpers = 0;
  for (const file of readdirSync(directory)) {
    if (!file.startsWith(`${pid}.out.`) || seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(directory, file), 'utf8');
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
    // Thread 1 is the main thread: the event loop, every request's JavaScript.
    if (/-0*1$/.test(file)) main += total;
    else helpers += total;
  }
  return { main, helpers };
}

interface Side {
  url: string;
  pid: number;
  directory: string;
  seen: Set<string>;
}

/** Rounds of REQUESTS on one side: instructions per request of each round (main thread, helpers). */
async function measure(side: Side, workload: Workload): Promise<{ main: number[]; helpers: number[] }> {
  await load(side.url, workload, WARM_UP);
  const control = (...args: string[]) =>
    execFileSync('callgrind_control', [...args, String(side.pid)], { stdio: 'ignore' });
  control('--dump=warm-up');
  dumped(side.directory, side.pid, side.seen);
  const main: number[] = [];
  const helpers: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    control('--zero');
    await load(side.url, workload, REQUESTS);
    control(`--dump=round-${round}`);
    const counts = dumped(side.directory, side.pid, side.seen);
    main.push(counts.main / REQUESTS);
    helpers.push(counts.helpers / REQUESTS);
  }
  return { main, helpers };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const thousands = (value: number) => `${(value / 1000).toFixed(1)}k`;

const lines: string[] = [
  `| Workload | Server, instructions a request (rounds) | Ceiling | Added by the server | Ceiling ÷ server | Collector threads, server / ceiling |`,
  '|---|--:|--:|--:|--:|--:|',
];
try {
  for (const key of names) {
    const workload = WORKLOADS[key]!;
    const serverDirectory = mkdtempSync(join(work, 'server-'));
    const server: ServerUnderTest = await startMenuServer({
      database: join(work, 'menu.db'),
      logLevel: 'warn',
      // Timers fire by the wall clock, and under callgrind a request takes some fifty times as long:
      // the change feed's poll (250 ms by default) would add its work to every few hundred requests,
      // and more of it the busier the machine. Once a minute it stays out of the rounds. (The webhook
      // dispatcher's wake, once a second, has no setting: its share is small and the same for every build.)
      serveArgs: ['--change-poll-ms', '60000'],
      wrapper: callgrind(serverDirectory),
      startMs: 180_000,
    });
    let ceiling: Ceiling | undefined;
    try {
      const answer = await fetchRaw(`${server.url}${workload.path ?? '/menu'}`, workload.request);
      const ceilingDirectory = mkdtempSync(join(work, 'ceiling-'));
      ceiling = await startCeiling(server, callgrind(ceilingDirectory));
      await ceiling.serve(answer);
      log(`${workload.name}: ${answer.status}, ${answer.body.length} bytes; the server under callgrind`);
      const served = await measure(
        { url: server.url, pid: server.pid, directory: serverDirectory, seen: new Set() },
        workload,
      );
      log(`${workload.name}: the ceiling under callgrind`);
      const bare = await measure(
        { url: ceiling.url, pid: ceiling.pid, directory: ceilingDirectory, seen: new Set() },
        workload,
      );
      const [s, c] = [median(served.main), median(bare.main)];
      lines.push(
        `| ${workload.name} | ${thousands(s)} (${served.main.map(thousands).join(', ')}) | ${thousands(c)} | ${thousands(s - c)} | ${((c / s) * 100).toFixed(0)} % | ${thousands(median(served.helpers))} / ${thousands(median(bare.helpers))} |`,
      );
      console.log(lines.at(-1));
    } finally {
      await ceiling?.stop();
      await server.stop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `\n${REQUESTS} requests a round, ${ROUNDS} rounds, medians; main thread only in the first columns.\n`,
);
console.log(lines.join('\n'));
