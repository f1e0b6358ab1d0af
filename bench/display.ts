/**
 * The display benchmark (issue 17).
 *
 * 1. The menu page /m/{slug} served from its kept snapshot (gzip, and 304 revalidation), requests per
 *    second against a bare node:http ceiling (bench/lib/ceiling-server.ts) writing the very bytes and headers
 *    the server sent, on the same core, measured in the same run (wrk, else autocannon, pinned to the other core).
 * 2. DISPLAY_BOARDS (default 500) boards on one process: event streams of /m/{slug}/events; one stock
 *    change through the sync API; the time until every stream has its event, DISPLAY_ROUNDS rounds.
 *
 * Run alone: `npx tsx bench/display.ts` (builds first if needed). Knobs: DISPLAY_SECONDS (per load
 * run, default 5), DISPLAY_BOARDS, DISPLAY_ROUNDS (default 10). Writes its section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCeiling } from './lib/ceiling.js';
import { cliDispensary, menuCli } from './lib/cli.js';
import { fetchRaw } from './lib/http.js';
import { LOAD_CLIENT, runLoad } from './lib/load.js';
import type { LoadResult } from './lib/load-worker.js';
import { currentRss, sleep, startRun, TASKSET } from './lib/processes.js';
import { writeResultsSection } from './lib/results.js';
import { startMenuServer } from './lib/server.js';

const SECONDS = Number(process.env.DISPLAY_SECONDS ?? 5);
const BOARDS = Number(process.env.DISPLAY_BOARDS ?? 500);
const ROUNDS = Number(process.env.DISPLAY_ROUNDS ?? 10);
const CONNECTIONS = 32;
const MENU_ITEMS = 500;

const { loadAtStart, log } = startRun();

const work = mkdtempSync(join(tmpdir(), 'menu-api-display-bench-'));
const db = join(work, 'menu.db');
const { key, menu, ...dispensary } = cliDispensary(db, work, {
  name: 'Display Bench',
  keyName: 'bench-display',
  items: MENU_ITEMS,
  seed: 11,
});
menuCli(db, ['dispensary', 'publish', String(dispensary.id), '--slug', 'bench']);
const [first] = menu;
const entry = (first!.prices as { unit: string; amount: number }[])[0]!;

const server = await startMenuServer({ database: db, logLevel: 'warn' });
const ceiling = await startCeiling(server);
const pageUrl = `${server.url}/m/bench`;

// 1. The page from its snapshot, against the ceiling.
interface Row {
  name: string;
  bytes: string;
  server: LoadResult;
  ceiling: LoadResult;
}
const rows: Row[] = [];
async function measure(name: string, headers: Record<string, string>): Promise<void> {
  const response = await fetchRaw(pageUrl, { headers });
  await ceiling.serve(response);
  const job = (url: string, durationSeconds: number) =>
    runLoad({ url, connections: CONNECTIONS, durationSeconds, method: 'GET', headers });
  await job(pageUrl, 1);
  await job(ceiling.url, 1);
  // Server, ceiling, ceiling, server: a load that drifts weighs on both alike.
  const halves = SECONDS / 2;
  const s1 = await job(pageUrl, halves);
  const c1 = await job(ceiling.url, halves);
  const c2 = await job(ceiling.url, halves);
  const s2 = await job(pageUrl, halves);
  const mean = (a: LoadResult, b: LoadResult): LoadResult => ({
    ...a,
    requestsPerSecond: (a.requestsPerSecond + b.requestsPerSecond) / 2,
    p50: (a.p50 + b.p50) / 2,
    p99: Math.max(a.p99, b.p99),
    statusCodes: Object.fromEntries(
      [...new Set([...Object.keys(a.statusCodes), ...Object.keys(b.statusCodes)])].map((code) => [
        code,
        (a.statusCodes[code] ?? 0) + (b.statusCodes[code] ?? 0),
      ]),
    ),
  });
  rows.push({
    name,
    bytes: `${response.body.length.toLocaleString('en-US')} B ${response.headers['content-encoding'] ?? 'identity'}`,
    server: mean(s1, s2),
    ceiling: mean(c1, c2),
  });
  log(
    `${name}: ${Math.round(mean(s1, s2).requestsPerSecond)} req/s (ceiling ${Math.round(mean(c1, c2).requestsPerSecond)})`,
  );
}

const gzipPage = await fetchRaw(pageUrl, { headers: { 'accept-encoding': 'gzip' } });
const etag = String(gzipPage.headers.etag);
await measure(`Menu page /m/{slug}, gzip, ${MENU_ITEMS} items`, { 'accept-encoding': 'gzip' });
await measure(`Menu page /m/{slug}, br, ${MENU_ITEMS} items`, { 'accept-encoding': 'br' });
await measure(`Menu page /m/{slug}, 304 revalidation`, { 'accept-encoding': 'gzip', 'if-none-match': etag });
await ceiling.stop();

// 2. Boards: event streams, one change, the time until all have it.
const rssBefore = currentRss(server.pid);
const streams: ReturnType<typeof httpRequest>[] = [];
let waiting: { remaining: Set<number>; done: () => void } | undefined;
const opened: Promise<void>[] = [];
for (let index = 0; index < BOARDS; index++) {
  opened.push(
    new Promise((resolve, reject) => {
      const request = httpRequest(`${server.url}/m/bench/events`, { agent: false });
      streams.push(request);
      request.on('error', reject);
      request.on('response', (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream ${index}: ${response.statusCode}`));
        response.setEncoding('utf8');
        let text = '';
        response.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('event: snapshot')) resolve();
          if (text.includes('event: update') && waiting?.remaining.delete(index)) {
            if (waiting.remaining.size === 0) waiting.done();
          }
          // Only the tail matters for the next event.
          const last = text.lastIndexOf('\n\n');
          if (last !== -1) text = text.slice(last + 2);
        });
      });
      request.end();
    }),
  );
}
await Promise.all(opened);
const bytesPerBoard = (currentRss(server.pid) - rssBefore) / BOARDS;
log(`${BOARDS} boards connected`);
const fanOut: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const all = new Promise<void>((resolve) => {
    waiting = { remaining: new Set(Array.from({ length: BOARDS }, (_, index) => index)), done: resolve };
  });
  const sent = performance.now();
  // Alternate sold out and in stock: each change is visible, so each is an event.
  const response = await fetch(`${server.url}/admin/v1/dispensaries/${dispensary.id}/inventory`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify([
      { item_id: first!.id, unit: entry.unit, amount: entry.amount, stock: round % 2 === 0 ? 0 : 5 },
    ]),
  });
  if (response.status !== 200) throw new Error(`stock change: ${response.status} ${await response.text()}`);
  await all;
  fanOut.push(performance.now() - sent);
  await sleep(200);
}
for (const stream of streams) stream.destroy();
await server.stop();
rmSync(work, { recursive: true, force: true });

const ms = (value: number) => value.toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const loadAtEnd = loadavg();
const table = [
  '| Workload | Body | req/s | p50 ms | p99 ms | Ceiling req/s | Ceiling p99 ms | Ratio | Statuses |',
  '|---|---|--:|--:|--:|--:|--:|--:|---|',
  ...rows.map(
    ({ name, bytes, server: s, ceiling: c }) =>
      `| ${name} | ${bytes} | ${Math.round(s.requestsPerSecond).toLocaleString('en-US')} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${Math.round(c.requestsPerSecond).toLocaleString('en-US')} | ${c.p99.toFixed(1)} | ${Math.round((100 * s.requestsPerSecond) / c.requestsPerSecond)} % | ${Object.entries(
        s.statusCodes,
      )
        .map(([code, count]) => `${code}×${count}`)
        .join(' ')} |`,
  ),
];
const fanOutLine = `- ${fanOut.map(ms).join(', ')} ms; median ${ms(median(fanOut))} ms, worst ${ms(Math.max(...fanOut))} ms`;
const section = `<!-- display:start (written by bench/display.ts) -->
## Display surfaces: menu page and boards (bench/display.ts)

Run with \`npx tsx bench/display.ts\` (also a step of \`npm run bench\`).

- Date: ${new Date().toISOString()}
- Machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}; Node ${process.version}; ${process.platform} ${process.arch}
- Load average (1, 5, 15 min) at start: ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}; at end: ${loadAtEnd.map((value) => value.toFixed(2)).join(', ')}
- Server: \`bin/menu-api serve\` (production build, one process)${TASKSET ? ', pinned to core 0 with taskset' : ''}, rate limits that never refuse; a published dispensary with ${MENU_ITEMS} items.
- Ceiling: a bare \`node:http\` server on the same core (bench/lib/ceiling-server.ts) writing the very bytes and headers the server sent.
- Load: ${LOAD_CLIENT === 'wrk' ? 'wrk (one thread)' : 'autocannon'}, ${CONNECTIONS} connections, in a child process pinned to core 1; 1 s warm-up, then ${SECONDS} s on each side (server, ceiling, ceiling, server).

${table.join('\n')}

### One change to ${BOARDS} boards on one process

${BOARDS} event streams of \`/m/{slug}/events\` (what each board and embed holds open); one stock change through the sync API (\`PATCH /admin/v1/dispensaries/:id/inventory\`, alternating sold out and in stock); time from sending the change until the last stream has its \`update\` event, ${ROUNDS} rounds:

${fanOutLine}
- Server memory per open board stream (RSS growth ÷ ${BOARDS}): ${(bytesPerBoard / 1024).toFixed(1)} KiB
<!-- display:end -->
`;
writeResultsSection('display', section);
console.log(`\n${table.join('\n')}\n\n${fanOutLine}\n`);
log('wrote the display section of bench/RESULTS.md');
process.exit(0);
