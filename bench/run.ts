/**
 * `npm run bench`: the menu read benchmark (issue 5). Builds if needed, generates a database through
 * the services, starts the production server (`bin/menu-api serve`, one process, pinned to core 0
 * where taskset exists) and a bare node:http ceiling server (same core) that writes the same bytes
 * with the same headers, drives both with autocannon from a child process pinned to core 1, and
 * writes bench/RESULTS.md.
 *
 * Knobs (environment): BENCH_SECONDS (per run, default 5), BENCH_SCALE (dispensaries of the scale run,
 * default 2000), BENCH_CONNECTIONS (default 32).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchDatabase, type BenchDispensary, generateDatabase, realisticMenu } from './data.js';
import {
  type Ceiling,
  cpuMs,
  currentRss,
  fetchRaw,
  peakRss,
  type RawResponse,
  ROOT,
  runLoad,
  type ServerUnderTest,
  startCeiling,
  startMenuServer,
  TASKSET,
} from './lib.js';
import type { LoadResult } from './load-worker.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SCALE = Number(process.env.BENCH_SCALE ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Sizes are reported in MiB; the RSS target (450 MB) is checked in bytes. */
const MB = 1024 * 1024;

const started = Date.now();
const loadAtStart = loadavg();
const log = (message: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);

// 1. A current build.
function newestMtime(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
const builtAt = (() => {
  try {
    return statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs;
  } catch {
    return 0;
  }
})();
if (builtAt < newestMtime(join(ROOT, 'src'))) {
  log('building (npm run build)');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

// 2. The database.
const work = mkdtempSync(join(tmpdir(), 'menu-api-bench-'));
const database = join(work, 'menu.db');
log(`generating the database: menus of 50, 500 and 5,000 items, and ${SCALE} dispensaries of 500 items`);
let lastShown = 0;
const db: BenchDatabase = await generateDatabase(database, {
  sizes: [50, 500, 5000],
  scale: SCALE,
  onProgress: (done, total) => {
    if (done === total || Date.now() - lastShown > 2000) {
      lastShown = Date.now();
      log(`  ${done} / ${total} scale dispensaries`);
    }
  },
});
const sized = (items: number) => db.sized.find((dispensary) => dispensary.items === items)!;
const { username, password } = db.credential;

interface Request {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}
const formB = (dispensary: BenchDispensary, acceptEncoding?: string): Request => ({
  method: 'GET',
  headers: {
    store: dispensary.token,
    username,
    password,
    ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
  },
});
const formA = (dispensary: BenchDispensary, acceptEncoding: string): Request => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'accept-encoding': acceptEncoding },
  body: JSON.stringify({ username, password, collective_token: dispensary.token }),
});

interface Row {
  name: string;
  server: LoadResult;
  ceiling?: LoadResult;
  /** The ceiling row this one is compared with, when it has none of its own. */
  ceilingOf?: string;
  bodyBytes: number;
  encoding: string;
  expected: number;
  /** CPU time (user + system, every thread) per request, µs: steadier than req/s on a busy machine. */
  serverCpuUs: number;
  ceilingCpuUs?: number;
}

const load = (url: string, request: Request, seconds = SECONDS) =>
  runLoad({
    url: `${url}/menu`,
    connections: CONNECTIONS,
    durationSeconds: seconds,
    method: request.method,
    headers: request.headers,
    body: request.body,
  });

/** One workload: the server (after a short warm-up), then the ceiling serving the same answer. */
async function measure(
  server: ServerUnderTest,
  ceiling: Ceiling | undefined,
  name: string,
  request: Request,
  revalidate = false,
): Promise<Row> {
  const first: RawResponse = await fetchRaw(`${server.url}/menu`, request);
  if (first.status !== 200) throw new Error(`${name}: the server answered ${first.status}: ${first.body}`);
  let answer = first;
  if (revalidate) {
    request = { ...request, headers: { ...request.headers, 'if-none-match': String(first.headers.etag) } };
    answer = await fetchRaw(`${server.url}/menu`, request);
    if (answer.status !== 304) throw new Error(`${name}: revalidation answered ${answer.status}`);
  }
  await load(server.url, request, 1);
  if (ceiling) await ceiling.serve(answer);
  // Server, ceiling, ceiling, server (half the time each): a load that drifts during the workload
  // (another process on the machine) weighs on both sides alike.
  const half = SECONDS / 2;
  const serverRuns: LoadResult[] = [];
  const ceilingRuns: LoadResult[] = [];
  let serverCpuMs = 0;
  let ceilingCpuMs = 0;
  const timed = async (pid: number, run: () => Promise<LoadResult>) => {
    const before = cpuMs(pid);
    const result = await run();
    return { result, cpu: cpuMs(pid) - before };
  };
  const onServer = async (seconds: number) => {
    const { result, cpu } = await timed(server.pid, () => load(server.url, request, seconds));
    serverRuns.push(result);
    serverCpuMs += cpu;
  };
  const onCeiling = async () => {
    const { result, cpu } = await timed(ceiling!.pid, () => load(ceiling!.url, request, half));
    ceilingRuns.push(result);
    ceilingCpuMs += cpu;
  };
  log(`${name}: server, ceiling${ceiling ? ', ceiling, server' : ''}`);
  await onServer(ceiling ? half : SECONDS);
  if (ceiling) {
    await onCeiling();
    await onCeiling();
    await onServer(half);
  }
  const serverResult = combine(serverRuns);
  const ceilingResult = ceiling ? combine(ceilingRuns) : undefined;
  const perRequest = (ms: number, runs: LoadResult[]) =>
    (ms * 1000) /
    Math.max(
      1,
      runs.reduce((sum, run) => sum + run.total, 0),
    );
  return {
    serverCpuUs: perRequest(serverCpuMs, serverRuns),
    ceilingCpuUs: ceiling ? perRequest(ceilingCpuMs, ceilingRuns) : undefined,
    name,
    server: serverResult,
    ceiling: ceilingResult,
    bodyBytes: first.body.length,
    encoding: String(first.headers['content-encoding'] ?? 'identity'),
    expected: revalidate ? 304 : 200,
  };
}

/** Runs of one side as one: rates averaged, p50 averaged, p99 the worse, counts summed. */
function combine(runs: LoadResult[]): LoadResult {
  if (runs.length === 1) return runs[0]!;
  const mean = (pick: (run: LoadResult) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  const statusCodes: Record<string, number> = {};
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  return {
    requestsPerSecond: mean((run) => run.requestsPerSecond),
    p50: mean((run) => run.p50),
    p99: Math.max(...runs.map((run) => run.p99)),
    bytesPerSecond: mean((run) => run.bytesPerSecond),
    total: runs.reduce((sum, run) => sum + run.total, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    timeouts: runs.reduce((sum, run) => sum + run.timeouts, 0),
    statusCodes,
  };
}

const rows: Row[] = [];
let mainPeakRss = 0;
let rebuild: { first: number[]; all: number[] } = { first: [], all: [] };
const scaleRows: {
  dispensaries: number;
  warmupMs: number;
  result: LoadResult;
  rss: number;
  peak: number;
}[] = [];

try {
  // 3. The workloads, each against the ceiling.
  const server = await startMenuServer({ database, logLevel: 'warn' });
  const ceiling = await startCeiling();
  try {
    const m500 = sized(500);
    rows.push(await measure(server, ceiling, 'Form B, gzip, 500 items', formB(m500, 'gzip')));
    rows.push(await measure(server, ceiling, 'Form B, brotli, 500 items', formB(m500, 'br')));
    rows.push(await measure(server, ceiling, 'Form B, identity, 500 items', formB(m500)));
    rows.push(await measure(server, ceiling, 'Form A, gzip, 500 items', formA(m500, 'gzip')));
    rows.push(
      await measure(server, ceiling, 'Form B, 304 revalidation, 500 items', formB(m500, 'gzip'), true),
    );
    rows.push(await measure(server, ceiling, 'Form B, gzip, 50 items', formB(sized(50), 'gzip')));
    rows.push(await measure(server, ceiling, 'Form B, gzip, 5,000 items', formB(sized(5000), 'gzip')));

    // 4. The first read after a stock change, on the 5,000-item menu.
    log('rebuild after a stock change (5,000 items)');
    const big = sized(5000);
    const target = realisticMenu(5000, 5000).find((item) => item.active) as {
      id: number;
      prices: { unit: string; amount: number }[];
    };
    const changeStock = async (stock: number) => {
      const response = await fetchRaw(`${server.url}/admin/v1/dispensaries/${big.id}/inventory`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${db.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify([
          { item_id: target.id, unit: target.prices[0]!.unit, amount: target.prices[0]!.amount, stock },
        ]),
      });
      if (response.status !== 200)
        throw new Error(`stock change answered ${response.status}: ${response.body}`);
    };
    rebuild = { first: [], all: [] };
    for (let round = 0; round < 5; round++) {
      await changeStock(1000 + round);
      const response = await fetchRaw(`${server.url}/menu`, formB(big, 'gzip'));
      if (response.status !== 200) throw new Error(`read after change answered ${response.status}`);
      rebuild.first.push(response.ms);
      await changeStock(2000 + round);
      const at = performance.now();
      await Promise.all(
        ['br', 'gzip', undefined].map((coding) => fetchRaw(`${server.url}/menu`, formB(big, coding))),
      );
      rebuild.all.push(performance.now() - at);
    }
    mainPeakRss = peakRss(server.pid);
  } finally {
    await server.stop();
    await ceiling.stop();
  }

  // 5. What request logging costs (the default --log-level info writes two lines per request).
  const logging = await startMenuServer({ database, logLevel: 'info' });
  try {
    const row = await measure(
      logging,
      undefined,
      'Form B, gzip, 500 items, --log-level info',
      formB(sized(500), 'gzip'),
    );
    rows.push({ ...row, ceilingOf: 'Form B, gzip, 500 items' });
  } finally {
    await logging.stop();
  }

  // 6. The scale run: round-robin over 1, 100 and SCALE dispensaries, 256 MiB budget.
  const scaleServer = await startMenuServer({ database, snapshotBudgetMb: 256, logLevel: 'warn' });
  try {
    for (const count of [1, 100, SCALE]) {
      const tokens = db.scale.slice(0, count).map((dispensary) => dispensary.token);
      log(`scale: ${count} dispensaries, first pass (builds each snapshot)`);
      const warmStart = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < tokens.length) {
            const token = tokens[next++]!;
            const response = await fetchRaw(`${scaleServer.url}/menu`, {
              headers: { store: token, username, password, 'accept-encoding': 'gzip' },
            });
            if (response.status !== 200) throw new Error(`scale warm-up answered ${response.status}`);
          }
        }),
      );
      const warmupMs = performance.now() - warmStart;
      log(`scale: ${count} dispensaries, round-robin`);
      const result = await runLoad({
        url: `${scaleServer.url}/menu`,
        connections: CONNECTIONS,
        durationSeconds: SECONDS,
        method: 'GET',
        headers: { store: tokens[0]!, username, password, 'accept-encoding': 'gzip' },
        rotateStore: tokens,
      });
      scaleRows.push({
        dispensaries: count,
        warmupMs,
        result,
        rss: currentRss(scaleServer.pid),
        peak: peakRss(scaleServer.pid),
      });
    }
  } finally {
    await scaleServer.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// 7. The report.
const loadAtEnd = loadavg();
const cpuModel =
  /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mbs = (bytes: number) => fmt(bytes / MB, 1);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const statuses = (result: LoadResult) =>
  Object.entries(result.statusCodes)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ') +
  (result.errors || result.timeouts ? ` errors×${result.errors} timeouts×${result.timeouts}` : '');
const ceilingFor = (row: Row) => row.ceiling ?? rows.find((other) => other.name === row.ceilingOf)?.ceiling;
const ratio = (row: Row) => {
  const ceiling = ceilingFor(row);
  return ceiling ? row.server.requestsPerSecond / ceiling.requestsPerSecond : Number.NaN;
};
const p99Ratio = (row: Row) => {
  const ceiling = ceilingFor(row);
  return ceiling ? row.server.p99 / Math.max(ceiling.p99, 1) : Number.NaN;
};
const clean = (row: Row) =>
  row.server.errors === 0 &&
  row.server.timeouts === 0 &&
  Object.keys(row.server.statusCodes).every((code) => Number(code) === row.expected);

const mainTable = [
  '| Workload | Body | req/s | p50 ms | p99 ms | MiB/s | Ceiling req/s | Ceiling p99 ms | Ratio | p99 ÷ ceiling p99 | CPU µs/req (ceiling) | Statuses |',
  '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ...rows.map((row) => {
    const ceiling = ceilingFor(row);
    return `| ${row.name} | ${fmt(row.bodyBytes)} B ${row.encoding} | ${fmt(row.server.requestsPerSecond)} | ${fmt(row.server.p50, 1)} | ${fmt(row.server.p99, 1)} | ${mbs(row.server.bytesPerSecond)} | ${ceiling ? fmt(ceiling.requestsPerSecond) : '–'} | ${ceiling ? fmt(ceiling.p99, 1) : '–'} | ${fmt(ratio(row) * 100)} % | ${fmt(p99Ratio(row), 2)} | ${fmt(row.serverCpuUs)} (${row.ceilingCpuUs === undefined ? '–' : fmt(row.ceilingCpuUs)}) | ${statuses(row.server)}${clean(row) ? '' : ' (unexpected)'} |`;
  }),
];
const scaleTable = [
  '| Dispensaries × 500 items | First pass (builds) | req/s | p50 ms | p99 ms | MiB/s | RSS after | Peak RSS | Statuses |',
  '|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ...scaleRows.map(
    (row) =>
      `| ${fmt(row.dispensaries)} | ${fmt(row.warmupMs / 1000, 1)} s | ${fmt(row.result.requestsPerSecond)} | ${fmt(row.result.p50, 1)} | ${fmt(row.result.p99, 1)} | ${mbs(row.result.bytesPerSecond)} | ${fmt(row.rss / MB)} MiB | ${fmt(row.peak / MB)} MiB | ${statuses(row.result)} |`,
  ),
];

const byName = (name: string) => rows.find((row) => row.name === name)!;
const bGzip = byName('Form B, gzip, 500 items');
const aGzip = byName('Form A, gzip, 500 items');
const bIdentity = byName('Form B, identity, 500 items');
const p99Rows = rows.filter((row) => row.ceiling);
const worstP99 = p99Rows.reduce((worst, row) => (p99Ratio(row) > p99Ratio(worst) ? row : worst), p99Rows[0]!);
const largest = scaleRows.at(-1);
/** The same comparison by CPU time: the ceiling's µs per request ÷ the server's. */
const cpuRatio = (row: Row) =>
  row.ceilingCpuUs === undefined ? '–' : `${fmt((row.ceilingCpuUs / row.serverCpuUs) * 100)} %`;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const targets = [
  '| Target | Measured | |',
  '|---|---|---|',
  `| Form B 500 items gzip ≥ 80 % of the ceiling | ${fmt(ratio(bGzip) * 100)} % (by CPU per request: ${cpuRatio(bGzip)}) | ${verdict(ratio(bGzip) >= 0.8)} |`,
  `| Form A 500 items gzip ≥ 75 % of the ceiling | ${fmt(ratio(aGzip) * 100)} % (by CPU per request: ${cpuRatio(aGzip)}) | ${verdict(ratio(aGzip) >= 0.75)} |`,
  `| Form B 500 items identity ≥ 85 % of the ceiling | ${fmt(ratio(bIdentity) * 100)} % (by CPU per request: ${cpuRatio(bIdentity)}) | ${verdict(ratio(bIdentity) >= 0.85)} |`,
  `| p99 ≤ 2 × the ceiling's p99 at ${CONNECTIONS} connections (every workload) | worst: ${fmt(p99Ratio(worstP99), 2)} × (${worstP99.name}) | ${verdict(p99Rows.every((row) => p99Ratio(row) <= 2))} |`,
  `| First read after a stock change, 5,000 items < 150 ms | median ${fmt(median(rebuild.first))} ms (gzip); every coding at once: median ${fmt(median(rebuild.all))} ms | ${verdict(median(rebuild.first) < 150)} (gzip), ${verdict(median(rebuild.all) < 150)} (all) |`,
  largest
    ? `| ${fmt(largest.dispensaries)} × 500 round-robin, 256 MiB budget: RSS < 450 MB, no error | peak ${fmt(largest.peak / MB)} MiB (${fmt(largest.peak / 1e6)} MB), ${statuses(largest.result)} | ${verdict(largest.peak < 450e6 && largest.result.errors === 0 && Object.keys(largest.result.statusCodes).every((code) => code === '200'))} |`
    : '',
];

const report = `# Benchmark results

Written by \`npm run bench\` (bench/run.ts). Reproduce with:

\`\`\`
npm install && npm run bench
\`\`\`

(\`BENCH_SECONDS\`, \`BENCH_SCALE\` and \`BENCH_CONNECTIONS\` change the run length, the scale run's size and the connections.)

- Date: ${new Date().toISOString()}
- Machine: ${availableParallelism()} cores, ${cpuModel}; Node ${process.version}; ${process.platform} ${process.arch}
- Load average (1, 5, 15 min) at start: ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}; at end: ${loadAtEnd.map((value) => value.toFixed(2)).join(', ')}
- Server: \`node bin/menu-api serve --workers 1 --log-level warn\` (production build), ${TASKSET ? 'pinned to core 0 with taskset' : 'not pinned (no taskset)'}; rate limits set so high that they never refuse (their bookkeeping still runs).
- Ceiling: a bare \`node:http\` server on the same core writing the very bytes and headers the server sent for that workload.
- Load: autocannon, ${CONNECTIONS} connections, in a child process ${TASKSET ? 'pinned to core 1' : ''}. Each workload: a 1 s warm-up, then ${SECONDS} s on each side, run as server, ceiling, ceiling, server (${SECONDS / 2} s each) so that a load that drifts weighs on both alike; req/s and p50 are the means of the two runs, p99 the worse.
- The whole run took ${fmt((Date.now() - started) / 1000)} s.

## Workloads

${mainTable.join('\n')}

Ratio: the server's requests per second ÷ the ceiling's for the same bytes. CPU µs/req: the process's CPU time (user + system, every thread, from /proc) per request during the measured runs, server and (in brackets) ceiling; unlike req/s it hardly depends on what else the machine runs, so on a shared machine it is the steadier comparison. The \`--log-level info\` row is compared with the ceiling of the Form B gzip row: it shows what the default request log (two lines per request) costs.

## First read after a stock change (rebuild), 5,000 items

Stock set with \`PATCH /admin/v1/dispensaries/:id/inventory\`, then the time of the first \`GET /menu\` as the client sees it (fresh connection), 5 rounds:

- gzip only (builds identity bytes + gzip): ${rebuild.first.map((ms) => fmt(ms)).join(', ')} ms; median ${fmt(median(rebuild.first))} ms
- br, gzip and identity asked at once (builds every coding): ${rebuild.all.map((ms) => fmt(ms)).join(', ')} ms; median ${fmt(median(rebuild.all))} ms

## Peak RSS

- Server of the workloads above (menus of 50, 500 and 5,000 items): ${fmt(mainPeakRss / MB)} MiB (VmHWM)

## Scale: round-robin over many dispensaries (Form B, gzip, 256 MiB budget)

${scaleTable.join('\n')}

The first pass reads every dispensary once (4 at a time), which builds its snapshot; the measured run then reads them round-robin. RSS is VmRSS after the run, peak is VmHWM.

## Targets

${targets.filter(Boolean).join('\n')}
`;
writeFileSync(join(ROOT, 'bench/RESULTS.md'), report);
console.log(`\n${mainTable.join('\n')}\n\n${scaleTable.join('\n')}\n\n${targets.join('\n')}\n`);
log('wrote bench/RESULTS.md');
execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/live.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
}); // live menus: streams
execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/webhooks.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
}); // live menus: webhooks
execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/display.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
}); // display surfaces
