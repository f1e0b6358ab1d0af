/**
 * Form v1's figures (issue 32, §4).
 *
 * 1. A filtered page of 100 items from a 5,000-item menu (gzip), and the unfiltered v1 menu beside
 *    Form B's (500 items, gzip), each against a bare node:http ceiling (bench/lib/ceiling-server.ts)
 *    writing the very bytes and headers the server sent, on the same core, in the same run; the
 *    unfiltered v1 menu and Form B's, whose ratios are compared, in rounds (each in turn), their
 *    medians compared.
 * 2. `q` searches: the server's CPU per request over batches of distinct searches (each a search, not
 *    a kept answer), one kept-alive connection; the median batch. Beside them, the same for one filtered
 *    page asked again and again (a kept answer).
 * 3. The first filtered read after a one-item change (fresh connection), rounds.
 * 4. What the query index adds to the heap for the 5,000-item menu (bench/lib/v1-index-memory.ts).
 *
 * Run alone: `npx tsx bench/v1.ts` (builds first if needed); also a step of `npm run bench`. Knobs:
 * BENCH_SECONDS (each side of a load workload, default 6), V1_PAIR_ROUNDS (rounds of the unfiltered
 * v1 menu beside Form B's, default 15), V1_PAIR_SECONDS (each side's seconds a round, default 2),
 * V1_BATCHES (default 11), V1_BATCH (requests per batch, default 400), V1_ROUNDS (default 10).
 * Writes its section of bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCeiling } from './lib/ceiling.js';
import { type BenchDispensary, generateDatabase } from './lib/data.js';
import { fetchRaw, statusOver } from './lib/http.js';
import { LOAD_CLIENT } from './lib/load.js';
import {
  type BenchRequest,
  combineRows,
  formBRequest,
  measureWorkload,
  type Row,
  WARM_UP_SECONDS,
} from './lib/measure.js';
import { cpuMs, ensureBuilt, progressLog, ROOT, TASKSET } from './lib/processes.js';
import { writeResultsSection } from './lib/results.js';
import { startMenuServer } from './lib/server.js';
import { V1_FILTERED, v1Request } from './lib/v1-requests.js';
import { SEARCHES as searches } from './lib/v1-searches.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Rounds of the unfiltered v1 menu beside Form B's, and each side's seconds in a round. */
const PAIR_ROUNDS = Number(process.env.V1_PAIR_ROUNDS ?? 15);
const PAIR_SECONDS = Number(process.env.V1_PAIR_SECONDS ?? 2);
const CONNECTIONS = 32;
const BATCHES = Number(process.env.V1_BATCHES ?? 11);
const BATCH = Number(process.env.V1_BATCH ?? 400);
const ROUNDS = Number(process.env.V1_ROUNDS ?? 10);
/** The filtered page: one product type, by price, 100 items (the default limit). */
const FILTERED = V1_FILTERED;

const started = Date.now();
const loadAtStart = loadavg();
const log = progressLog('', started);
ensureBuilt(log);

const work = mkdtempSync(join(tmpdir(), 'menu-api-v1-bench-'));
const database = join(work, 'menu.db');
log('database: 500 and 5,000 items');
const db = await generateDatabase(database, { sizes: [500, 5000], scale: 0 });
const [m500, m5000] = db.sized as [BenchDispensary, BenchDispensary];

/** Form v1: HTTP Basic and Dispensary-Token. */
const v1 = (dispensary: BenchDispensary, acceptEncoding?: string): BenchRequest =>
  v1Request(db.credential, dispensary, acceptEncoding);

const server = await startMenuServer({ database, logLevel: 'warn' });
const ceiling = await startCeiling(server);
const rows: Row[] = [];
let searchCpu: { name: string; perBatch: number[] }[] = [];
const firstReads: number[] = [];
/** The unfiltered v1 menu's rounds and Form B's, each a server-and-ceiling measurement. */
const pairRounds: [Row[], Row[]] = [[], []];
const ratio = (row: Row) => row.server.requestsPerSecond / row.ceiling!.requestsPerSecond;
try {
  // 1. Load workloads against the ceiling.
  type Workload = [name: string, path: string, request: BenchRequest];
  const measure = ([name, path, request]: Workload, seconds: number) =>
    measureWorkload(server, ceiling, name, request, { seconds, connections: CONNECTIONS, path, log });
  rows.push(
    await measure(
      [
        'Form v1, filtered page of 100 (product_type, sort=price), gzip, 5,000 items',
        FILTERED,
        v1(m5000, 'gzip'),
      ],
      SECONDS,
    ),
  );
  // The unfiltered v1 menu's ratio is compared with Form B's, in PAIR_ROUNDS rounds after one warm-up
  // each: a round measures both (server, ceiling, ceiling, server each), in turn (v1 then B, then B
  // then v1), and the verdict compares the medians of the rounds' ratios. On a shared machine one
  // window's rate swings by a third (bench/PROFILE.md, round thirty-seven): one pair of windows decided
  // the verdict by which of the two such a swing fell on; the median of many rounds does not.
  const pair: [Workload, Workload] = [
    [
      'Form v1, unfiltered (limit=1000: every item), gzip, 500 items',
      '/v1/menu?limit=1000',
      v1(m500, 'gzip'),
    ],
    ['Form B, gzip, 500 items', '/menu', formBRequest(db.credential, m500, 'gzip')],
  ];
  // Each one's warm-up (its figures are left out: the rounds' are the ones compared).
  for (const workload of pair) await measure(workload, PAIR_SECONDS);
  for (let round = 0; round < PAIR_ROUNDS; round++) {
    for (const at of round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
      const [name, path, request] = pair[at];
      pairRounds[at].push(
        await measureWorkload(server, ceiling, name, request, {
          seconds: PAIR_SECONDS,
          connections: CONNECTIONS,
          path,
          warmUp: false,
          log: () => {},
        }),
      );
    }
    log(
      `round ${round + 1} of ${PAIR_ROUNDS}: v1 ${ratio(pairRounds[0].at(-1)!).toFixed(2)}, B ${ratio(pairRounds[1].at(-1)!).toFixed(2)}`,
    );
  }
  rows.push(combineRows(pairRounds[0]), combineRows(pairRounds[1]));

  // 2. Server CPU per request over batches, one kept-alive connection, one request at a time.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = async (path: string, request: BenchRequest) => {
    const status = await statusOver(agent, `${server.url}${path}`, { headers: request.headers });
    if (status !== 200) throw new Error(`${path}: ${status}`);
  };
  const batches = async (name: string, path: (index: number) => string, request: BenchRequest) => {
    log(`${name}: ${BATCHES} batches of ${BATCH}`);
    const perBatch: number[] = [];
    let next = 0;
    for (let batch = 0; batch < BATCHES; batch++) {
      const before = cpuMs(server.pid);
      for (let index = 0; index < BATCH; index++) await get(path(next++), request);
      perBatch.push((cpuMs(server.pid) - before) / BATCH);
    }
    searchCpu.push({ name, perBatch });
  };
  const searchPath = (index: number, extra = '') =>
    `/v1/menu?q=${encodeURIComponent(searches[index % searches.length]!)}${extra}`;
  if (searches.length < BATCHES * BATCH) log(`only ${searches.length} distinct searches: some repeat`);
  searchCpu = [];
  await batches('`q` search (limit 100, whole items), gzip', (index) => searchPath(index), v1(m5000, 'gzip'));
  await batches(
    '`q` search, limit=20&fields=id,name,prices.effective_price, gzip',
    (index) => searchPath(index + BATCHES * BATCH, '&limit=20&fields=id,name,prices.effective_price'),
    v1(m5000, 'gzip'),
  );
  await batches(
    'The filtered page above asked again (a kept answer), gzip',
    () => FILTERED,
    v1(m5000, 'gzip'),
  );
  agent.destroy();

  // 3. The first filtered read after a one-item change (a stock level) on the 5,000-item menu.
  log(`first filtered read after a one-item change: ${ROUNDS} rounds`);
  const menu = (
    await fetchRaw(
      `${server.url}/v1/menu?product_type=Flower&limit=1&fields=id,prices.unit,prices.amount`,
      v1(m5000),
    )
  ).body;
  const target = (
    JSON.parse(menu.toString()) as { data: { id: number; prices: { unit: string; amount: number }[] }[] }
  ).data[0]!;
  for (let round = 0; round < ROUNDS; round++) {
    const change = await fetchRaw(`${server.url}/admin/v1/dispensaries/${m5000.id}/inventory`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${db.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          item_id: target.id,
          unit: target.prices[0]!.unit,
          amount: target.prices[0]!.amount,
          stock: 1000 + round,
        },
      ]),
    });
    if (change.status !== 200) throw new Error(`stock change answered ${change.status}: ${change.body}`);
    const read = await fetchRaw(`${server.url}${FILTERED}`, v1(m5000, 'gzip'));
    if (read.status !== 200) throw new Error(`read after change answered ${read.status}`);
    firstReads.push(read.ms);
  }
} finally {
  await ceiling.stop();
  await server.stop();
}

// 4. The index's memory, in a process of its own (with --expose-gc).
log('index memory');
const memory = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      join(ROOT, 'bench/lib/v1-index-memory.ts'),
      database,
      String(m5000.id),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  ),
) as {
  readMs: number;
  indexMs: number;
  changedReadMs: number;
  patchMs: number;
  keptRowsMs: number;
  queryMs: number;
  searchMs: number;
  items: number;
  indexBytes: number;
  jsonBytes: number;
  resultBytes: number;
  resultItems: number;
};
rmSync(work, { recursive: true, force: true });

const loadAtEnd = loadavg();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const table = [
  '| Workload | Body | req/s | p50 ms | p99 ms | Ceiling req/s | Ratio | CPU µs/req (ceiling) |',
  '|---|---|--:|--:|--:|--:|--:|--:|',
  ...rows.map(
    (row) =>
      `| ${row.name} | ${row.bodyBytes.toLocaleString('en-US')} B ${row.encoding} | ${Math.round(row.server.requestsPerSecond).toLocaleString('en-US')} | ${row.server.p50.toFixed(1)} | ${row.server.p99.toFixed(1)} | ${Math.round(row.ceiling!.requestsPerSecond).toLocaleString('en-US')} | ${Math.round(100 * ratio(row))} % | ${Math.round(row.serverCpuUs)} (${Math.round(row.ceilingCpuUs!)}) |`,
  ),
];
const [filtered] = rows as [Row];
const cpuLines = searchCpu.map(
  ({ name, perBatch }) =>
    `- ${name}: median ${median(perBatch).toFixed(2)} ms per request (batches: ${perBatch.map((ms) => ms.toFixed(2)).join(', ')})`,
);
const search = searchCpu[0]!;
const [v1Ratios, formBRatios] = pairRounds.map((rounds) => rounds.map(ratio)) as [number[], number[]];
const [v1Median, formBMedian] = [median(v1Ratios), median(formBRatios)];
const v1Wins = v1Ratios.filter((value, round) => value >= formBRatios[round]!).length;
const targets = [
  `- Filtered page of 100 from 5,000 items, gzip, ≥ 0.5 of the ceiling: ${ratio(filtered).toFixed(2)} (${ratio(filtered) >= 0.5 ? 'met' : 'not met'})`,
  `- A \`q\` search, median server CPU < 1 ms per request: ${median(search.perBatch).toFixed(2)} ms (${median(search.perBatch) < 1 ? 'met' : 'not met'})`,
  `- The unfiltered v1 menu no lower a ratio than Form B's in the same run: median of ${PAIR_ROUNDS} rounds ${v1Median.toFixed(2)} against ${formBMedian.toFixed(2)}, v1's the higher or equal in ${v1Wins} of ${PAIR_ROUNDS} rounds (${v1Median >= formBMedian ? 'met' : 'not met'})`,
  `- The first filtered read after a one-item change < 15 ms: median ${median(firstReads).toFixed(1)} ms (${median(firstReads) < 15 ? 'met' : 'not met'})`,
];
const section = `<!-- v1:start (written by bench/v1.ts) -->
## Form v1: filtered, searched and paged reads (bench/v1.ts)

Run with \`npx tsx bench/v1.ts\` (also a step of \`npm run bench\`).

- Date: ${new Date().toISOString()}; the run took ${Math.round((Date.now() - started) / 1000)} s
- Machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}; Node ${process.version}; ${process.platform} ${process.arch}
- Load average (1, 5, 15 min) at start: ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}; at end: ${loadAtEnd.map((value) => value.toFixed(2)).join(', ')}
- Server: \`bin/menu-api serve\` (production build, one process, SQLite)${TASKSET ? ', pinned to core 0 with taskset' : ''}, rate limits that never refuse; the realistic 500- and 5,000-item menus of bench/lib/data.ts.
- Ceiling: a bare \`node:http\` server on the same core writing the very bytes and headers the server sent. Load: ${LOAD_CLIENT === 'wrk' ? 'wrk (one thread)' : 'autocannon'}, ${CONNECTIONS} connections, pinned to core 1; ${WARM_UP_SECONDS} s warm-up on each side, then ${SECONDS} s on each side (server, ceiling, ceiling, server). The unfiltered v1 menu and Form B's, whose ratios are compared, are warmed up once each and then measured in ${PAIR_ROUNDS} rounds of ${PAIR_SECONDS} s a side (v1 then B, then B then v1, and so on); their rows above combine the rounds, and the verdict below compares the medians of the rounds' ratios, as one window in which the shared machine slowed weighs on a mean.

${table.join('\n')}

The rounds' ratios, v1 against Form B: ${v1Ratios.map((value, round) => `${value.toFixed(2)}/${formBRatios[round]!.toFixed(2)}`).join(', ')}.

Requests per second and ratios follow whatever else the machine runs (see the load average above: on a shared machine they swing from run to run); the CPU per request is the steadier figure. Form v1's plain \`GET /v1/menu\` reads (Basic credentials, a plain query the route's schema accepts) take the read lane (docs/architecture.md), as Form B's plain read does.

Server CPU per request (user + system, every thread, from /proc), one kept-alive connection, one request at a time, ${BATCHES} batches of ${BATCH}; every search in a batch is a different one (${searches.length} distinct: a word of the menus, then the first 2 to 4 letters of another), so each is looked up in the menu's search index (only the items holding its words are scored), filtered, sorted, paged and compressed, not answered from a kept answer:

${cpuLines.join('\n')}

The first \`GET ${FILTERED}\` (gzip, fresh connection) after one stock level was set through the sync API on the 5,000-item menu, ${ROUNDS} rounds: ${firstReads.map((ms) => ms.toFixed(1)).join(', ')} ms; median ${median(firstReads).toFixed(1)} ms. A change no longer reads the menu whole: the menu read last is patched with the items the live feed names since its cursor (and the inactive items, read again only when a change notice says one changed: the feed leaves them out), the index keeps every unchanged item's row, and the query results and the search index of the version before are patched with the changed rows. Its steps, in a process of its own (bench/lib/v1-index-memory.ts, medians of 5): the store read of the items the feed names ${memory.changedReadMs.toFixed(2)} ms, the menu patched ${memory.patchMs.toFixed(2)} ms, the index keeping the unchanged rows ${memory.keptRowsMs.toFixed(2)} ms, the filtered query patched ${memory.queryMs.toFixed(2)} ms, a search on the patched search index ${memory.searchMs.toFixed(2)} ms; for a cold menu, the store read of the 5,000 items ${memory.readMs.toFixed(1)} ms and the index built whole (each item's v1 record, its JSON, folded words and values) ${memory.indexMs.toFixed(1)} ms.

The query index of the 5,000-item menu (${memory.items} items, active or not), in a process of its own after full collections: the index built from the items adds ${mib(memory.indexBytes)} MiB to the heap (${(memory.indexBytes / memory.items / 1024).toFixed(1)} KiB an item: each item's v1 record and its JSON, ${mib(memory.jsonBytes)} MiB of text, and the folded words and values filters read); one kept query result (${memory.resultItems} items, product_type and sort=price) ${(memory.resultBytes / 1024).toFixed(0)} KiB. A paging pins the version it reads (docs/v1.md, "Paging"): it keeps that version's index (not its items), at most 20,000 items of versions per process (PINNED_MAX_ITEMS), so at most about ${mib((20_000 / memory.items) * memory.indexBytes)} MiB beside the current menus (their kept answers aside).

### Targets (issue 32, §4)

${targets.join('\n')}
<!-- v1:end -->
`;
writeResultsSection('v1', section);
console.log(`\n${table.join('\n')}\n\n${cpuLines.join('\n')}\n\n${targets.join('\n')}\n`);
log('wrote the v1 section of bench/RESULTS.md');
process.exit(0);
