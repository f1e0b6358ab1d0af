/**
 * `npm run bench`: the menu read benchmark (issue 5). Builds if needed, generates a database through
 * the services, starts the production server (`bin/menu-api serve`, one process, pinned to core 0
 * where taskset exists) and a bare node:http ceiling server (same core) that writes the same bytes
 * with the same headers, drives both with wrk (autocannon when wrk is not installed) from a child
 * process pinned to core 1, and
 * writes bench/RESULTS.md.
 *
 * Knobs (environment): BENCH_SECONDS (per run, default 6), BENCH_SCALE (dispensaries of the scale run,
 * default 2000), BENCH_CONNECTIONS (default 32).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Ceiling, startCeiling } from './lib/ceiling.js';
import { type BenchDatabase, type BenchDispensary, generateDatabase, realisticMenu } from './lib/data.js';
import { fetchRaw } from './lib/http.js';
import { LOAD_CLIENT, runLoad } from './lib/load.js';
import type { LoadResult } from './lib/load-worker.js';
import {
  type BenchRequest,
  formARequest,
  formBRequest,
  measureWorkload,
  type Row,
  WARM_UP_SECONDS,
} from './lib/measure.js';
import { currentRss, peakRss, ROOT, sleep, startRun, TASKSET } from './lib/processes.js';
import { type ServerUnderTest, startMenuServer } from './lib/server.js';
import { measureBothWrites, median, type WriteTimes } from './lib/writes.js';

// Even, so that each half of a workload is whole seconds (wrk takes whole seconds).
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const SCALE = Number(process.env.BENCH_SCALE ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const REBUILD_ROUNDS = 9;
/** The mixed-load run: pollers, and the time between two stock changes. */
const POLLERS = 4;
const CHANGE_EVERY_MS = 50;
/** Sizes are reported in MiB; the RSS target (450 MB) is checked in bytes. */
const MB = 1024 * 1024;

// 1. A current build.
const { started, loadAtStart, log } = startRun();

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
// The database just written (about a gigabyte with the scale menus) is still in the page cache, dirty:
// its write-back would run on both cores under the first workloads, server and ceiling unevenly.
log('writing the database out to disk (sync) before measuring');
execFileSync('sync');
const sized = (items: number) => db.sized.find((dispensary) => dispensary.items === items)!;
const { username, password } = db.credential;

const formB = (dispensary: BenchDispensary, acceptEncoding?: string) =>
  formBRequest(db.credential, dispensary, acceptEncoding);
const formA = (dispensary: BenchDispensary, acceptEncoding: string) =>
  formARequest(db.credential, dispensary, acceptEncoding);
const measure = (
  server: ServerUnderTest,
  ceiling: Ceiling | undefined,
  name: string,
  request: BenchRequest,
  revalidate = false,
  status = 200,
) =>
  measureWorkload(server, ceiling, name, request, {
    seconds: SECONDS,
    connections: CONNECTIONS,
    revalidate,
    status,
    log,
  });

const rows: Row[] = [];
const REFUSED_429 = 'Form B, 429 (rate limited), 500 items' as const;
const REFUSED_403 = 'Form B, 403 (unknown token), 500 items' as const;
/** Form B gzip on servers at the default log level (one line per request), beside the quiet row. */
const DEFAULT_LOG_ROW = 'Form B, gzip, 500 items, --log-level info (the default)';
/**
 * Server processes each workload of section 3 runs on. A process of this server keeps one of two
 * speeds for its whole life (bench/PROFILE.md, round eight), so a single process made the ratios
 * of one run differ by a fifth from the next; the table shows, for each workload, the process whose
 * ratio is the median of the three.
 */
const READ_PROCESSES = 3;
/** Each process's ratio to the ceiling, by workload (section 3). */
const processRatios = new Map<string, number[]>();
/** Server processes measured for each side of the refusal targets (section 6). */
const REFUSAL_PROCESSES = 3;
/** CPU µs per request of each process measured in section 6: served reads, and each refusal. */
const refusalCpu = { served: [] as number[], [REFUSED_429]: [] as number[], [REFUSED_403]: [] as number[] };
/** The 500-item reads again, one connection at a time (section 3b). */
const oneAtATime: Row[] = [];
let mainPeakRss = 0;
let rebuild: { first: number[]; all: number[] } = { first: [], all: [] };
/** Four pollers on the 5,000-item menu, unchanging and with a stock change every 50 ms. */
let mixed: { still: LoadResult; moving: LoadResult; changes: number; changeMs: number[] } | undefined;
let writes: WriteTimes[] = [];
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
  const ceiling = await startCeiling(server);
  try {
    const m500 = sized(500);
    const readers = [server];
    try {
      while (readers.length < READ_PROCESSES)
        readers.push(await startMenuServer({ database, logLevel: 'warn' }));
      /** The workload on every process in turn; the row of the process of median ratio. */
      const onEach = async (name: string, request: BenchRequest, revalidate = false, on = readers) => {
        const measured: Row[] = [];
        for (const reader of on) measured.push(await measure(reader, ceiling, name, request, revalidate));
        const ratios = measured.map((row) => row.server.requestsPerSecond / row.ceiling!.requestsPerSecond);
        processRatios.set(name, ratios);
        const middle = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
        return measured[ratios.indexOf(middle)]!;
      };
      rows.push(await onEach('Form B, gzip, 500 items', formB(m500, 'gzip')));
      // The default configuration beside the quiet one: `--log-level info` writes one line per request.
      const logging: ServerUnderTest[] = [];
      try {
        while (logging.length < READ_PROCESSES)
          logging.push(await startMenuServer({ database, logLevel: 'info' }));
        rows.push(await onEach(DEFAULT_LOG_ROW, formB(m500, 'gzip'), false, logging));
      } finally {
        for (const reader of logging) await reader.stop();
      }
      rows.push(await onEach('Form B, brotli, 500 items', formB(m500, 'br')));
      rows.push(await onEach('Form B, identity, 500 items', formB(m500)));
      rows.push(await onEach('Form A, gzip, 500 items', formA(m500, 'gzip')));
      rows.push(await onEach('Form B, 304 revalidation, 500 items', formB(m500, 'gzip'), true));
      rows.push(await onEach('Form B, gzip, 50 items', formB(sized(50), 'gzip')));
      rows.push(await onEach('Form B, gzip, 5,000 items', formB(sized(5000), 'gzip')));
    } finally {
      for (const reader of readers.slice(1)) await reader.stop();
    }

    // 3b. The 500-item reads one connection at a time. With one request in flight neither side
    // answers several per wake-up, and both pay the same system calls and wake-ups per request, so
    // the difference in CPU per request is what the server's own code adds; under 32 connections that
    // difference grows with how often the slower side finds the load generator asleep (bench/PROFILE.md).
    for (const [name, request] of [
      ['Form B, gzip, 500 items', formB(m500, 'gzip')],
      ['Form A, gzip, 500 items', formA(m500, 'gzip')],
      ['Form B, identity, 500 items', formB(m500)],
    ] as const) {
      oneAtATime.push(
        await measureWorkload(server, ceiling, `${name}, 1 connection`, request, {
          seconds: SECONDS,
          connections: 1,
          log,
        }),
      );
    }

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
    for (let round = 0; round < REBUILD_ROUNDS; round++) {
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

    // 5. Mixed load: four pollers reading the 5,000-item menu (gzip), first while it does not change,
    // then while its stock changes every 50 ms (a busy point of sale).
    log(
      `mixed load: ${POLLERS} pollers, 5,000 items, unchanging, then a stock change every ${CHANGE_EVERY_MS} ms`,
    );
    const poll = () =>
      runLoad({
        url: `${server.url}/menu`,
        connections: POLLERS,
        durationSeconds: SECONDS,
        method: 'GET',
        headers: formB(big, 'gzip').headers,
      });
    await poll();
    const still = await poll();
    let stop = false;
    let changes = 0;
    const changeMs: number[] = [];
    const changer = (async () => {
      while (!stop) {
        const at = performance.now();
        await changeStock(5000 + changes++);
        const took = performance.now() - at;
        changeMs.push(took);
        if (took < CHANGE_EVERY_MS) await sleep(CHANGE_EVERY_MS - took);
      }
    })();
    const moving = await poll();
    stop = true;
    await changer;
    mixed = { still, moving, changes, changeMs };
    mainPeakRss = peakRss(server.pid);
  } finally {
    await server.stop();
    await ceiling.stop();
  }

  // 6. What a refused request costs, against a served one: 429 from the address bucket (one request
  // per 1,000 seconds, after the first), and 403 for a token nobody holds (good credentials). One
  // process of this server runs at one of two speeds for its whole life (bench/PROFILE.md, round
  // eight), so each is measured in REFUSAL_PROCESSES processes, alternated with as many serving
  // Form B gzip reads, and compared by the medians; the first process of each gives its table row.
  for (let round = 0; round < REFUSAL_PROCESSES; round++) {
    const serving = await startMenuServer({ database, logLevel: 'warn' });
    try {
      const row = await measure(
        serving,
        undefined,
        'Form B, gzip, 500 items (served)',
        formB(sized(500), 'gzip'),
      );
      refusalCpu.served.push(row.serverCpuUs);
    } finally {
      await serving.stop();
    }
    const refusing = await startMenuServer({
      database,
      logLevel: 'warn',
      serveArgs: ['--rate-limit-address', '0.001,1'],
    });
    try {
      await fetchRaw(`${refusing.url}/menu`, formB(sized(500), 'gzip'));
      const row = await measure(refusing, undefined, REFUSED_429, formB(sized(500), 'gzip'), false, 429);
      refusalCpu[REFUSED_429].push(row.serverCpuUs);
      if (round === 0) rows.push({ ...row, ceilingOf: 'Form B, gzip, 500 items' });
    } finally {
      await refusing.stop();
    }
    const unauthorized = await startMenuServer({ database, logLevel: 'warn' });
    try {
      const request = formB(sized(500), 'gzip');
      const row = await measure(
        unauthorized,
        undefined,
        REFUSED_403,
        { ...request, headers: { ...request.headers, store: 'no-such-token' } },
        false,
        403,
      );
      refusalCpu[REFUSED_403].push(row.serverCpuUs);
      if (round === 0) rows.push({ ...row, ceilingOf: 'Form B, gzip, 500 items' });
    } finally {
      await unauthorized.stop();
    }
  }

  // 7. The scale run: round-robin over 1, 100 and SCALE dispensaries, 256 MiB budget.
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
  // 8. Writes on both databases (in this process, through the services).
  log(
    'writes: a stock batch of 6,680 entries and an unchanged full sync of 5,000 items, SQLite and PostgreSQL',
  );
  writes = await measureBothWrites();
} finally {
  rmSync(work, { recursive: true, force: true });
}

// 9. The report.
const loadAtEnd = loadavg();
const cpuModel =
  /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mbs = (bytes: number) => fmt(bytes / MB, 1);
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
  Object.keys(row.server.statusCodes).every((code) => statusIs(code, row.expected));
/** Whether a status key of a load result is the expected status (wrk only tells 2xx/3xx from the rest). */
const statusIs = (code: string, expected: number) =>
  code === String(expected) ||
  (code === '2xx/3xx' && expected < 400) ||
  (code === 'other' && expected >= 400);

const mainTable = [
  '| Workload | Client | Body | req/s | p50 ms | p99 ms | MiB/s | Ceiling req/s | Ceiling p99 ms | Ratio | p99 ÷ ceiling p99 | CPU µs/req (ceiling) | Statuses |',
  '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ...rows.map((row) => {
    const ceiling = ceilingFor(row);
    return `| ${row.name} | ${row.server.client} | ${fmt(row.bodyBytes)} B ${row.encoding} | ${fmt(row.server.requestsPerSecond)} | ${fmt(row.server.p50, 1)} | ${fmt(row.server.p99, 1)} | ${mbs(row.server.bytesPerSecond)} | ${ceiling ? fmt(ceiling.requestsPerSecond) : '–'} | ${ceiling ? fmt(ceiling.p99, 1) : '–'} | ${fmt(ratio(row) * 100)} % | ${fmt(p99Ratio(row), 2)} | ${fmt(row.serverCpuUs)} (${row.ceilingCpuUs === undefined ? '–' : fmt(row.ceilingCpuUs)}) | ${statuses(row.server)}${clean(row) ? '' : ' (unexpected)'} |`;
  }),
];
const scaleTable = [
  '| Dispensaries × 500 items | Client | First pass (builds) | req/s | p50 ms | p99 ms | MiB/s | RSS after | Peak RSS | Statuses |',
  '|--:|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ...scaleRows.map(
    (row) =>
      `| ${fmt(row.dispensaries)} | ${row.result.client} | ${fmt(row.warmupMs / 1000, 1)} s | ${fmt(row.result.requestsPerSecond)} | ${fmt(row.result.p50, 1)} | ${fmt(row.result.p99, 1)} | ${mbs(row.result.bytesPerSecond)} | ${fmt(row.rss / MB)} MiB | ${fmt(row.peak / MB)} MiB | ${statuses(row.result)} |`,
  ),
];

const byName = (name: string) => rows.find((row) => row.name === name)!;
const addedCpu = (row: Row) => row.serverCpuUs - (row.ceilingCpuUs ?? Number.NaN);
const oneAtATimeTable = [
  `| Workload | req/s (ceiling) | CPU µs/req, server | ceiling | Added by the server | Added at ${CONNECTIONS} connections |`,
  '|---|--:|--:|--:|--:|--:|',
  ...oneAtATime.map((row) => {
    const concurrent = byName(row.name.replace(', 1 connection', ''));
    return `| ${row.name} | ${fmt(row.server.requestsPerSecond)} (${row.ceiling ? fmt(row.ceiling.requestsPerSecond) : '–'}) | ${fmt(row.serverCpuUs)} | ${fmt(row.ceilingCpuUs ?? Number.NaN)} | ${fmt(addedCpu(row))} µs | ${fmt(addedCpu(concurrent))} µs |`;
  }),
];
const bGzip = byName('Form B, gzip, 500 items');
const bGzipLogged = byName(DEFAULT_LOG_ROW);
const defaultLogNote = `At the default log level Form B gzip served ${fmt((bGzipLogged.server.requestsPerSecond / bGzip.server.requestsPerSecond) * 100)} % of the quiet row's requests per second, at ${fmt(bGzipLogged.serverCpuUs - bGzip.serverCpuUs)} µs more CPU per request.`;
const aGzip = byName('Form A, gzip, 500 items');
const bIdentity = byName('Form B, identity, 500 items');
/** The p99 targets hold for the bench's configuration (--log-level warn), not the default log row. */
const p99Rows = rows.filter((row) => row.ceiling && row.name !== DEFAULT_LOG_ROW);
const worstP99 = p99Rows.reduce((worst, row) => (p99Ratio(row) > p99Ratio(worst) ? row : worst), p99Rows[0]!);
const largest = scaleRows.at(-1);
/** The same comparison by CPU time: the ceiling's µs per request ÷ the server's. */
const cpuRatio = (row: Row) =>
  row.ceilingCpuUs === undefined ? '–' : `${fmt((row.ceilingCpuUs / row.serverCpuUs) * 100)} %`;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const p99Of500 = p99Rows.filter((row) => row.name.includes('500 items'));
const worst500 = p99Of500.reduce(
  (worst, row) => (p99Ratio(row) > p99Ratio(worst) ? row : worst),
  p99Of500[0]!,
);
const mixedRatio = mixed ? mixed.moving.requestsPerSecond / mixed.still.requestsPerSecond : Number.NaN;
const writeOf = (database: string) => writes.find((result) => result.database === database);
const writeTarget = (kind: 'stock' | 'sync', limit: number) =>
  ['SQLite', 'PostgreSQL'].map((database) => {
    const result = writeOf(database);
    if (!result)
      return `| ${kind === 'stock' ? 'Stock batch of 6,680 entries' : 'Full sync of 5,000 unchanged items'} < ${limit} ms, ${database} | not measured | **not met** |`;
    const wall = kind === 'stock' ? result.stockMs : result.syncMs;
    const cpu = kind === 'stock' ? result.stockCpuMs : result.syncCpuMs;
    return `| ${kind === 'stock' ? `Stock batch of ${fmt(result.entries)} entries` : 'Full sync of 5,000 unchanged items'} < ${limit} ms, ${database} | median ${fmt(median(wall))} ms (${fmt(Math.min(...wall))}-${fmt(Math.max(...wall))}); CPU of this process ${fmt(median(cpu))} ms | ${verdict(median(wall) < limit)} |`;
  });
const targets = [
  '| Target | Measured | |',
  '|---|---|---|',
  `| Form B 500 items gzip ≥ 60 % of the ceiling (${LOAD_CLIENT}) | ${fmt(ratio(bGzip) * 100)} % (by CPU per request: ${cpuRatio(bGzip)}) | ${verdict(ratio(bGzip) >= 0.6)} |`,
  `| Form A 500 items gzip ≥ 50 % of the ceiling (${LOAD_CLIENT}) | ${fmt(ratio(aGzip) * 100)} % (by CPU per request: ${cpuRatio(aGzip)}) | ${verdict(ratio(aGzip) >= 0.5)} |`,
  `| Form B 500 items identity ≥ 85 % of the ceiling (${LOAD_CLIENT}) | ${fmt(ratio(bIdentity) * 100)} % (by CPU per request: ${cpuRatio(bIdentity)}) | ${verdict(ratio(bIdentity) >= 0.85)} |`,
  `| p99 ≤ 2 × the ceiling's p99, 500 items (${CONNECTIONS} connections) | worst: ${fmt(p99Ratio(worst500), 2)} × (${worst500.name}) | ${verdict(p99Of500.every((row) => p99Ratio(row) <= 2))} |`,
  `| p99 ≤ 2 × the ceiling's p99, every workload (kept from the last benchmark) | worst: ${fmt(p99Ratio(worstP99), 2)} × (${worstP99.name}) | ${verdict(p99Rows.every((row) => p99Ratio(row) <= 2))} |`,
  `| First Form B gzip read after a one-item stock change, 5,000 items: median < 15 ms | median ${fmt(median(rebuild.first), 1)} ms (${fmt(Math.min(...rebuild.first), 1)}-${fmt(Math.max(...rebuild.first), 1)}) | ${verdict(median(rebuild.first) < 15)} |`,
  `| Every coding at once after a stock change, 5,000 items: median < 150 ms (kept from the last benchmark) | median ${fmt(median(rebuild.all))} ms | ${verdict(median(rebuild.all) < 150)} |`,
  mixed
    ? `| Mixed load, ${POLLERS} pollers, a stock change every ${CHANGE_EVERY_MS} ms: reads/s ≥ half of the unchanging menu's | ${fmt(mixed.moving.requestsPerSecond)} against ${fmt(mixed.still.requestsPerSecond)} reads/s: ${fmt(mixedRatio * 100)} % (${fmt(mixed.changes)} changes) | ${verdict(mixedRatio >= 0.5)} |`
    : '',
  ...writeTarget('stock', 150),
  ...writeTarget('sync', 200),
  ...[REFUSED_429, REFUSED_403].map((name) => {
    const refused = refusalCpu[name];
    const served = refusalCpu.served;
    const list = (values: number[]) => values.map((value) => fmt(value)).join(', ');
    return refused.length > 0 && served.length > 0
      ? `| A refused request costs no more than a served one: ${name.split(',')[1]!.trim()} | median ${fmt(median(refused))} µs of CPU per request (${list(refused)}) against ${fmt(median(served))} (${list(served)}) for served Form B gzip 500 items, ${REFUSAL_PROCESSES} server processes each | ${verdict(median(refused) <= median(served))} |`
      : '';
  }),
  largest
    ? `| ${fmt(largest.dispensaries)} × 500 round-robin, 256 MiB budget: RSS < 450 MB, no error | peak ${fmt(largest.peak / MB)} MiB (${fmt(largest.peak / 1e6)} MB), ${statuses(largest.result)} | ${verdict(largest.peak < 450e6 && largest.result.errors === 0 && Object.keys(largest.result.statusCodes).every((code) => statusIs(code, 200)))} |`
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
- Server: \`node bin/menu-api serve --workers 1 --log-level warn\` (production build; the default \`--log-level info\` for its own row), ${TASKSET ? 'pinned to core 0 with taskset' : 'not pinned (no taskset)'}; rate limits set so high that they never refuse (their bookkeeping still runs).
- Ceiling: a bare \`node:http\` server on the same core writing the very bytes and headers the server sent for that workload.
- Load: ${LOAD_CLIENT === 'wrk' ? 'wrk (one thread)' : 'autocannon (wrk is not installed)'}, ${CONNECTIONS} connections, in a child process ${TASKSET ? 'pinned to core 1' : ''}. Each workload: a ${WARM_UP_SECONDS} s warm-up on each side (a fresh server's code is still being optimized before that: bench/PROFILE.md, round thirty-five), then ${SECONDS} s on each side, run as server, ceiling, ceiling, server (${SECONDS / 2} s each) so that a load that drifts weighs on both alike; req/s and p50 are the means of the two runs, p99 the worse.
- The whole run took ${fmt((Date.now() - started) / 1000)} s.

## Workloads

${mainTable.join('\n')}

Each workload above the 429 row ran on ${READ_PROCESSES} server processes in turn, each against the ceiling as described; the row shows the process whose ratio was the median (a process of this server keeps one of two speeds for its whole life, bench/PROFILE.md round eight). The ratios of the ${READ_PROCESSES} processes: ${[...processRatios].map(([name, ratios]) => `${name}: ${ratios.map((value) => `${fmt(value * 100)} %`).join(', ')}`).join('; ')}.

Ratio: the server's requests per second ÷ the ceiling's for the same bytes. CPU µs/req: the process's CPU time (user + system, every thread, from /proc) per request during the measured runs, server and (in brackets) ceiling; unlike req/s it hardly depends on what else the machine runs, so on a shared machine it is the steadier comparison. The \`--log-level info\` row is the default configuration, measured like the quiet row above it on servers started without \`--log-level warn\`: each writes one log line per request (to /dev/null here, so the line's cost is building and writing it, not storing it). ${defaultLogNote}

## What the server's code adds to a request (one connection)

${oneAtATime.length > 0 ? oneAtATimeTable.join('\n') : 'not run'}

The same 500-item reads with one connection (${SECONDS} s a side, same order). With one request in flight both sides pay the same system calls and wake-ups per request, so "added" (server CPU per request − the ceiling's) is the work of the server's own code: the access check, the rate limits, the hooks, Fastify's request and reply. Under ${CONNECTIONS} connections the difference is larger than this because the load generator waits on the slower server more often, and each answer that finds it asleep pays a wake-up in \`writev\` (bench/PROFILE.md, round six).

## First read after a stock change, 5,000 items

One stock level set with \`PATCH /admin/v1/dispensaries/:id/inventory\`, then the time of the first \`GET /menu\` as the client sees it (fresh connection), ${REBUILD_ROUNDS} rounds. The snapshot is patched: the items the live feed names are read again, their segments recompressed.

- gzip: ${rebuild.first.map((ms) => fmt(ms, 1)).join(', ')} ms; median ${fmt(median(rebuild.first), 1)} ms
- br, gzip and identity asked at once: ${rebuild.all.map((ms) => fmt(ms)).join(', ')} ms; median ${fmt(median(rebuild.all))} ms (brotli and identity are built from the patched segments)

## Mixed load, 5,000 items

${mixed ? `${POLLERS} pollers (${mixed.still.client}, ${POLLERS} connections, Form B gzip), ${SECONDS} s each: unchanging menu ${fmt(mixed.still.requestsPerSecond)} reads/s (p50 ${fmt(mixed.still.p50, 1)} ms, p99 ${fmt(mixed.still.p99, 1)} ms); with a stock change every ${CHANGE_EVERY_MS} ms ${fmt(mixed.moving.requestsPerSecond)} reads/s (p50 ${fmt(mixed.moving.p50, 1)} ms, p99 ${fmt(mixed.moving.p99, 1)} ms, ${statuses(mixed.moving)}): ${fmt(mixedRatio * 100)} %. ${fmt(mixed.changes)} stock changes were made (each a PATCH answered in median ${fmt(median(mixed.changeMs), 1)} ms).` : 'not run'}

## Writes (bench/writes.ts), 5,000-item menu, through the services

| Database | Stock batch of 6,680 entries, ms (median) | CPU ms (median) | Full sync of 5,000 unchanged items, ms (median) | CPU ms (median) |
|---|---|--:|---|--:|
${writes.map((result) => `| ${result.database} | ${result.stockMs.map((ms) => fmt(ms)).join(', ')} (${fmt(median(result.stockMs))}) | ${fmt(median(result.stockCpuMs))} | ${result.syncMs.map((ms) => fmt(ms)).join(', ')} (${fmt(median(result.syncMs))}) | ${fmt(median(result.syncCpuMs))} |`).join('\n')}

CPU: this process's user + system time (for SQLite, in process, nearly the whole cost; PostgreSQL's own work is not in it). The full sync includes validating the 5,000 items.

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
execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/rich.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
}); // rich items and specials
execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/v1.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
}); // Form v1: filtered, searched and paged reads
execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/read-garbage.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
}); // what reads leave for the old generation
