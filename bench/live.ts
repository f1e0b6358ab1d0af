/**
 * The live menu benchmark (issue 12): how soon a stock change accepted by the sync API reaches a live
 * `/events` stream, and how one change fans out to many streams.
 *
 * 1. Latency, SQLite, one process: a stock change (`PATCH /admin/v1/dispensaries/:id/inventory`), then
 *    the wait for its event on a Form B stream of the same server; one change at a time.
 * 2. Latency, PostgreSQL, two processes: written through one server, streamed from the other (the
 *    change crosses by LISTEN/NOTIFY).
 * 3. Fan-out: LIVE_STREAMS streams of one server, one change: the time until every stream has it, and
 *    the server's memory per open stream.
 *
 * The ceiling, measured in the same run: a bare node:http server (bench/lib/live-ceiling-server.ts) on the same
 * core that, on a POST, writes an event of the same size to every open stream and answers: the cost
 * of the transport alone. Servers run pinned to core 0 (taskset); this process is the client.
 *
 * Run alone: `npx tsx bench/live.ts` (builds first if needed). Knobs: LIVE_CHANGES (default 1000),
 * LIVE_STREAMS (default 1000), LIVE_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres;
 * the PostgreSQL part is skipped when it is unreachable). Writes its section of bench/RESULTS.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cliDispensary, menuCli } from './lib/cli.js';
import {
  currentRss,
  freePort,
  pinned,
  ROOT,
  SERVER_CORE,
  sleep,
  startRun,
  TASKSET,
} from './lib/processes.js';
import { writeResultsSection } from './lib/results.js';
import { startMenuServer } from './lib/server.js';

const CHANGES = Number(process.env.LIVE_CHANGES ?? 1000);
const STREAMS = Number(process.env.LIVE_STREAMS ?? 1000);
const FAN_OUT_ROUNDS = 10;
const POSTGRES_URL = process.env.LIVE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MENU_ITEMS = 500;

const { loadAtStart, log } = startRun();

interface Fixture {
  token: string;
  username: string;
  password: string;
  adminKey: string;
  dispensaryId: number;
  /** The first price entry of every active item: what the stock changes set. */
  entries: { item_id: number; unit: string; amount: number }[];
}

/** A dispensary with a realistic menu (every item active), a credential and an admin key, through the CLI. */
function setUp(db: string, work: string): Fixture {
  const { key, menu, ...dispensary } = cliDispensary(db, work, {
    name: 'Live Bench',
    keyName: 'bench-live',
    items: MENU_ITEMS,
    seed: 7,
  });
  const credential = menuCli<{ username: string; password: string }>(db, [
    'credential',
    'issue',
    '--username',
    'bench-live',
  ]);
  const entries = menu.map((item) => {
    const [price] = item.prices as { unit: string; amount: number }[];
    return { item_id: item.id as number, unit: price!.unit, amount: price!.amount };
  });
  return {
    token: dispensary.token,
    ...credential,
    adminKey: key,
    dispensaryId: dispensary.id,
    entries,
  };
}

/**
 * Stock values already seen, by stream: an event is recognized by the unique stock level it carries
 * (`"stock":N`), on the server's streams and the ceiling's alike.
 */
type Arrival = (value: number, at: number, stream: number) => void;

const STOCK = /"stock":(\d+)/g;

/** Opens `count` event streams (GET); calls `arrival` for every stock value in every event. */
async function openStreams(
  url: string,
  headers: Record<string, string>,
  count: number,
  arrival: Arrival,
  query = '',
): Promise<{ close(): void }> {
  const requests: ReturnType<typeof httpRequest>[] = [];
  const opening: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    opening.push(
      new Promise((resolve, reject) => {
        const request = httpRequest(`${url}/events${query}`, { headers, agent: false });
        requests.push(request);
        request.on('error', reject);
        request.on('response', (response) => {
          if (response.statusCode !== 200) {
            reject(new Error(`/events answered ${response.statusCode}`));
            return;
          }
          response.setEncoding('utf8');
          let pending = '';
          response.on('data', (chunk: string) => {
            const at = performance.now();
            pending += chunk;
            const end = pending.lastIndexOf('\n\n');
            if (end < 0) return;
            const frames = pending.slice(0, end);
            pending = pending.slice(end + 2);
            for (const match of frames.matchAll(STOCK)) arrival(Number(match[1]), at, index);
            resolve();
          });
          response.on('error', () => {});
        });
        request.end();
      }),
    );
    // A few at a time: a burst of thousands of connects overflows the listen backlog.
    if (opening.length % 50 === 0) await Promise.all(opening.slice(-50));
  }
  await Promise.all(opening);
  return {
    close: () => {
      for (const request of requests) request.destroy();
    },
  };
}

/** The Menu-Cursor of a Form B /menu read: where a client that has read the menu starts its stream. */
async function menuCursor(url: string, headers: Record<string, string>): Promise<string> {
  // A server that just started on a busy machine may answer 503 for a moment: retry as a client would.
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${url}/menu`, { headers });
    await response.arrayBuffer();
    const cursor = response.headers.get('menu-cursor');
    if (response.status === 200 && cursor) return `?after=${cursor}`;
    if (response.status !== 503 || attempt >= 20) {
      throw new Error(`/menu answered ${response.status} without Menu-Cursor`);
    }
    await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
  }
}

/** Sends one request on a kept-alive connection (fetch); resolves when the answer is in. */
async function send(url: string, init: RequestInit): Promise<void> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`${init.method} ${url} answered ${response.status}`);
}

interface Latencies {
  /** From sending the write to the event's arrival. */
  sendToEvent: number[];
  /** From the write's answer (accepted) to the event's arrival; 0 when the event came first. */
  acceptedToEvent: number[];
}

/** One change at a time: write value v, wait for its event; `changes` times. */
async function measureLatency(
  write: (value: number, index: number) => Promise<void>,
  waiters: Map<number, (at: number) => void>,
  changes: number,
  firstValue: number,
): Promise<Latencies> {
  const result: Latencies = { sendToEvent: [], acceptedToEvent: [] };
  for (let index = 0; index < changes; index++) {
    const value = firstValue + index;
    const arrived = new Promise<number>((resolve) => waiters.set(value, resolve));
    const sent = performance.now();
    await write(value, index);
    const accepted = performance.now();
    const at = await Promise.race([
      arrived,
      sleep(10_000).then(() => {
        throw new Error(`the event of change ${index} did not arrive within 10 s`);
      }),
    ]);
    waiters.delete(value);
    result.sendToEvent.push(at - sent);
    result.acceptedToEvent.push(Math.max(0, at - accepted));
  }
  return result;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));

/** The ceiling server, pinned to the server core. */
async function startCeiling(): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const [command, argv] = pinned(SERVER_CORE, process.execPath, [
    '--import',
    'tsx',
    join(ROOT, 'bench/lib/live-ceiling-server.ts'),
  ]);
  const child: ChildProcess = spawn(command, argv, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ceiling exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

const serveArgs = [
  '--max-streams-per-credential',
  String(STREAMS + 10),
  '--max-streams',
  String(STREAMS + 10),
  '--stream-heartbeat-ms',
  '60000',
];

interface Row {
  name: string;
  latencies: Latencies;
}

const rows: Row[] = [];
const work = mkdtempSync(join(tmpdir(), 'menu-api-live-bench-'));
const cleanups: (() => Promise<void> | void)[] = [() => rmSync(work, { recursive: true, force: true })];
let fanOut:
  | {
      server: number[];
      ceiling: number[];
      serverBytesPerStream: number;
      ceilingBytesPerStream: number;
    }
  | undefined;

try {
  // The ceiling: one stream, one change at a time; then STREAMS streams.
  const ceiling = await startCeiling();
  cleanups.push(() => ceiling.stop());
  const ceilingWaiters = new Map<number, (at: number) => void>();
  const ceilingStream = await openStreams(ceiling.url, {}, 1, (value, at) => ceilingWaiters.get(value)?.(at));
  const pad = 'x'.repeat(1200);
  const ceilingWrite = (value: number) =>
    send(`${ceiling.url}/change`, { method: 'POST', body: `{"stock":${value},"pad":"${pad}"}` });
  log(`ceiling: ${CHANGES} changes, one at a time`);
  rows.push({
    name: 'Ceiling (bare node:http, one process)',
    latencies: await measureLatency(ceilingWrite, ceilingWaiters, CHANGES, 1_000_000),
  });
  ceilingStream.close();

  // SQLite, one process.
  const sqlite = join(work, 'live.db');
  const fixture = setUp(sqlite, work);
  const server = await startMenuServer({ database: sqlite, logLevel: 'warn', serveArgs });
  cleanups.push(() => server.stop());
  const streamHeaders = { store: fixture.token, username: fixture.username, password: fixture.password };
  const write = (url: string) => (value: number, index: number) =>
    send(`${url}/admin/v1/dispensaries/${fixture.dispensaryId}/inventory`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${fixture.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ ...fixture.entries[index % fixture.entries.length]!, stock: value }]),
    });
  const waiters = new Map<number, (at: number) => void>();
  const one = await openStreams(
    server.url,
    streamHeaders,
    1,
    (value, at) => waiters.get(value)?.(at),
    await menuCursor(server.url, streamHeaders),
  );
  await measureLatency(write(server.url), waiters, 50, 500_000); // warm-up
  log(`SQLite, one process: ${CHANGES} stock changes, one at a time`);
  rows.push({
    name: 'SQLite, one process',
    latencies: await measureLatency(write(server.url), waiters, CHANGES, 1_000_000),
  });
  one.close();

  // Fan-out: STREAMS streams of the SQLite server, and of the ceiling.
  const fanOutRun = async (
    url: string,
    pid: number,
    headers: Record<string, string>,
    change: (value: number) => Promise<void>,
    firstValue: number,
    query = '',
  ) => {
    await sleep(500);
    const before = currentRss(pid);
    const arrivals = new Map<number, { count: number; last: number; done: () => void }>();
    const streams = await openStreams(
      url,
      headers,
      STREAMS,
      (value, at) => {
        const round = arrivals.get(value);
        if (!round) return;
        round.count += 1;
        round.last = Math.max(round.last, at);
        if (round.count === STREAMS) round.done();
      },
      query,
    );
    await sleep(1_000);
    const bytesPerStream = (currentRss(pid) - before) / STREAMS;
    const times: number[] = [];
    for (let round = 0; round < FAN_OUT_ROUNDS; round++) {
      const value = firstValue + round;
      const all = new Promise<void>((resolve) => arrivals.set(value, { count: 0, last: 0, done: resolve }));
      const sent = performance.now();
      await change(value);
      await Promise.race([
        all,
        sleep(30_000).then(() => {
          throw new Error(
            `round ${round}: ${arrivals.get(value)!.count} of ${STREAMS} streams had the change after 30 s`,
          );
        }),
      ]);
      times.push(arrivals.get(value)!.last - sent);
      await sleep(200);
    }
    streams.close();
    return { times, bytesPerStream };
  };
  log(`fan-out: ${STREAMS} streams of the server, ${FAN_OUT_ROUNDS} changes`);
  const serverFanOut = await fanOutRun(
    server.url,
    server.pid,
    streamHeaders,
    (value) => write(server.url)(value, 0),
    2_000_000,
    await menuCursor(server.url, streamHeaders),
  );
  log(`fan-out: ${STREAMS} streams of the ceiling, ${FAN_OUT_ROUNDS} changes`);
  const ceilingFanOut = await fanOutRun(ceiling.url, ceiling.pid, {}, ceilingWrite, 3_000_000);
  fanOut = {
    server: serverFanOut.times,
    ceiling: ceilingFanOut.times,
    serverBytesPerStream: serverFanOut.bytesPerStream,
    ceilingBytesPerStream: ceilingFanOut.bytesPerStream,
  };
  await server.stop();

  // PostgreSQL, two processes.
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  let reachable = true;
  try {
    await admin.connect();
  } catch (error) {
    reachable = false;
    log(`PostgreSQL part skipped: ${(error as Error).message}`);
  }
  if (reachable) {
    const name = `menu_api_bench_live_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    cleanups.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    const address = url.toString();
    const pgFixture = setUp(address, work);
    const [writer, reader] = await Promise.all([
      startMenuServer({ database: address, logLevel: 'warn', serveArgs }),
      startMenuServer({ database: address, logLevel: 'warn', serveArgs }),
    ]);
    cleanups.push(
      () => writer.stop(),
      () => reader.stop(),
    );
    const pgWaiters = new Map<number, (at: number) => void>();
    const headers = { store: pgFixture.token, username: pgFixture.username, password: pgFixture.password };
    const stream = await openStreams(
      reader.url,
      headers,
      1,
      (value, at) => pgWaiters.get(value)?.(at),
      await menuCursor(reader.url, headers),
    );
    const pgWrite = (value: number, index: number) =>
      send(`${writer.url}/admin/v1/dispensaries/${pgFixture.dispensaryId}/inventory`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${pgFixture.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ ...pgFixture.entries[index % pgFixture.entries.length]!, stock: value }]),
      });
    await measureLatency(pgWrite, pgWaiters, 50, 500_000);
    log(`PostgreSQL, written through one process, streamed from another: ${CHANGES} changes`);
    rows.push({
      name: 'PostgreSQL, two processes',
      latencies: await measureLatency(pgWrite, pgWaiters, CHANGES, 1_000_000),
    });
    stream.close();
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

// The report.
const loadAtEnd = loadavg();
const ceilingRow = rows[0]!;
const table = [
  '| Path | Changes | send → event p50 ms | p99 ms | accepted → event p50 ms | p99 ms | p99 ÷ ceiling p99 |',
  '|---|--:|--:|--:|--:|--:|--:|',
  ...rows.map(({ name, latencies }) => {
    const p99 = quantile(latencies.sendToEvent, 0.99);
    return `| ${name} | ${latencies.sendToEvent.length} | ${ms(quantile(latencies.sendToEvent, 0.5))} | ${ms(p99)} | ${ms(quantile(latencies.acceptedToEvent, 0.5))} | ${ms(quantile(latencies.acceptedToEvent, 0.99))} | ${(p99 / quantile(ceilingRow.latencies.sendToEvent, 0.99)).toFixed(1)} |`;
  }),
];
const find = (name: string) => rows.find((row) => row.name.startsWith(name));
/** The p99 of one path: from the write's answer (the issue's measure), or from sending it. */
const p99Of = (name: string, from: keyof Latencies = 'acceptedToEvent') => {
  const row = find(name);
  return row ? quantile(row.latencies[from], 0.99) : Number.NaN;
};
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const fanOutLines = fanOut
  ? [
      `- Server: ${fanOut.server.map(ms).join(', ')} ms; median ${ms(quantile(fanOut.server, 0.5))} ms, worst ${ms(Math.max(...fanOut.server))} ms`,
      `- Ceiling: ${fanOut.ceiling.map(ms).join(', ')} ms; median ${ms(quantile(fanOut.ceiling, 0.5))} ms, worst ${ms(Math.max(...fanOut.ceiling))} ms`,
      `- Server memory per open stream (RSS growth ÷ ${STREAMS}): ${(fanOut.serverBytesPerStream / 1024).toFixed(1)} KiB; ceiling: ${(fanOut.ceilingBytesPerStream / 1024).toFixed(1)} KiB`,
    ]
  : [];
const section = `<!-- live:start (written by bench/live.ts) -->
## Live menus: change to stream (bench/live.ts)

Run with \`npx tsx bench/live.ts\` (also the last step of \`npm run bench\`).

- Date: ${new Date().toISOString()}
- Machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}; Node ${process.version}; ${process.platform} ${process.arch}
- Load average (1, 5, 15 min) at start: ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}; at end: ${loadAtEnd.map((value) => value.toFixed(2)).join(', ')}
- Servers: \`bin/menu-api serve\` (production build, one process each)${TASKSET ? ', pinned to core 0 with taskset' : ''}; the client (this script: the sync API writer and the stream readers) is unpinned. Menu of ${MENU_ITEMS} items; each change sets the stock of one price entry (\`PATCH /admin/v1/dispensaries/:id/inventory\`), one change at a time; the event is recognized on a Form B \`GET /events\` stream.
- Ceiling: a bare \`node:http\` server on the same core (bench/lib/live-ceiling-server.ts) that, on a POST, writes an event of about the same size to every open stream and answers.
- send → event: from sending the write to the event's arrival (includes the write itself). accepted → event: from the write's answer to the event's arrival (0 when the event came first: the server publishes right after the commit, before it answers).

| | |
|---|---|
${table.join('\n')}

### One change to ${STREAMS} streams of one process

Time from sending the change until the last of the ${STREAMS} streams has its event, ${FAN_OUT_ROUNDS} rounds:

${fanOutLines.join('\n')}

### Targets

| Target | Measured | |
|---|---|---|
| p99 under 50 ms, one process (SQLite), from the change accepted | ${ms(p99Of('SQLite'))} ms (from sending the write: ${ms(p99Of('SQLite', 'sendToEvent'))} ms; the ceiling's: ${ms(p99Of('Ceiling', 'sendToEvent'))} ms) | ${verdict(p99Of('SQLite') < 50)} |
| p99 under 250 ms across processes (PostgreSQL), from the change accepted | ${find('PostgreSQL') ? `${ms(p99Of('PostgreSQL'))} ms (from sending the write: ${ms(p99Of('PostgreSQL', 'sendToEvent'))} ms)` : 'not run'} | ${find('PostgreSQL') ? verdict(p99Of('PostgreSQL') < 250) : '–'} |
| ${STREAMS} streams all reached within 1 s | ${fanOut ? `worst ${ms(Math.max(...fanOut.server))} ms` : 'not run'} | ${fanOut ? verdict(Math.max(...fanOut.server) < 1000) : '–'} |
<!-- live:end -->
`.replace('| | |\n|---|---|\n', '');

writeResultsSection('live', section);
console.log(`\n${table.join('\n')}\n\n${fanOutLines.join('\n')}\n`);
log('wrote the live section of bench/RESULTS.md');
