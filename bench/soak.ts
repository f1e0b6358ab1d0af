/**
 * `npm run soak`: a bounded soak test against a real `menu-api serve` process.
 *
 * For --seconds (default 60) it sends a steady stream of requests (--rate per second, default 100,
 * open loop: a slow answer does not slow the stream down) mixing reads of both forms (menu, store,
 * inventory) with sync API writes (item patches, store updates, the odd full sync), plus one stock
 * change every second that the very next inventory read must show. Meanwhile four live streams
 * (`/events`, two per form) and a webhook receiver (signatures verified with `standardwebhooks`)
 * follow the dispensary from the cursor before the warm-up; after the load, every change of the feed
 * since then must have reached each of them (bench/lib/soak-push.ts). It reports the requests, the errors
 * (anything but the expected status, a connection error, a stale read, a change a stream or the
 * receiver never got: must be 0), latency percentiles, the server's resident memory at the start,
 * middle and end (after a warm-up), and per push channel the changes made, delivered, missing and
 * duplicated, with the stock changes' delivery latency; then it stops the server with SIGTERM and
 * checks that it exits 0. `--out` writes the report as its setup's section of that file.
 *
 *   npm run soak -- --seconds 60 --rate 100 [--items 300] [--full-sync-seconds 10] [--db PATH|postgres://...] [--out bench/SOAK.md]
 *   npm run soak -- --minutes 10 --database postgres --workers 2
 *
 * --database postgres creates a database of its own on SOAK_POSTGRES_URL's server (default
 * postgres://postgres@127.0.0.1:5432/postgres) and drops it afterwards; --workers N runs `serve
 * --workers N` (memory and CPU are then those of the primary and its workers together).
 *
 * Clients spread over several credentials, admin keys and loopback source addresses (127.0.0.x), as
 * many integrators would, so that the default rate limits (per credential, key and address) are not
 * what is measured. Exit code 1 when there was any error.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  allDelivered,
  type Delivery,
  delivery,
  followStream,
  readFeed,
  type StockChange,
  type StreamOpening,
  startWebhookReceiver,
  stockCursors,
} from './lib/soak-push.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'menu-api');

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    minutes: { type: 'string' },
    database: { type: 'string', default: 'sqlite' },
    workers: { type: 'string', default: '1' },
    rate: { type: 'string', default: '100' },
    items: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '5' },
    'full-sync-seconds': { type: 'string', default: '10' },
    db: { type: 'string' },
    out: { type: 'string' },
    credentials: { type: 'string', default: '12' },
    addresses: { type: 'string', default: '10' },
  },
});

const SECONDS = args.minutes !== undefined ? Number(args.minutes) * 60 : Number(args.seconds);
const WORKERS = Number(args.workers);
const DATABASE = args.database === 'postgres' ? 'postgres' : 'sqlite';
const RATE = Number(args.rate);
const ITEMS = Number(args.items);
const WARMUP_SECONDS = Number(args.warmup);
const FULL_SYNC_SECONDS = Number(args['full-sync-seconds']);
const CREDENTIALS = Number(args.credentials);
const ADDRESSES = Number(args.addresses);
const ADMIN_KEYS = 4;
/** Live streams per form (Form B's GET /events, Form A's POST /events). */
const STREAMS_PER_FORM = 2;
/** How long after the load the push channels may take to deliver the last changes. */
const DELIVERY_GRACE_MS = 60_000;
/** The key webhook secrets are encrypted with, for the server and the CLI (in the environment, out of ps). */
const CHILD_ENV = { ...process.env, WEBHOOK_KEY: randomBytes(32).toString('base64') };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cli<T>(db: string, command: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, '--db', db, ...command, '--json'],
      { cwd: ROOT, encoding: 'utf8', env: CHILD_ENV },
      (error, out, err) => {
        if (error) reject(new Error(`menu-api ${command.join(' ')}: ${err}${out}`));
        else resolve(JSON.parse(out) as T);
      },
    );
  });
}

/** Runs `work` over `items`, `limit` at a time. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += limit) {
    results.push(...(await Promise.all(items.slice(start, start + limit).map(work))));
  }
  return results;
}

function menu(count: number, round: number): Record<string, unknown>[] {
  const types = ['Flower', 'Edible', 'Concentrate', 'Tincture', 'Drink', 'Preroll', 'Vape', 'Topical'];
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `Soak Item ${index + 1}`,
    brand: `Brand ${index % 25}`,
    product_type: types[index % types.length],
    product_subtype: index % 2 ? 'Indica' : 'Hybrid',
    description: `Round ${round}: ${'A well-described product. '.repeat(4)}`,
    image: `https://images.example.com/${index + 1}.jpg`,
    thc: (index % 30) + 0.5,
    cbd: index % 3 ? null : 1.25,
    flavors: ['Citrus', 'Pine'],
    effects: ['Calm'],
    conditions: ['Stress'],
    active: index % 17 !== 0,
    prices: [
      { unit: 'gram', amount: 1, price: 10 + (index % 9), stock: 50 },
      { unit: 'ounce', amount: 0.125, price: 35 + (index % 7), stock: 20 },
    ],
  }));
}

interface Answer {
  status: number;
  body: string;
  /** The Menu-Cursor header, when there is one. */
  cursor?: string;
}

const agents = Array.from(
  { length: ADDRESSES },
  (_, index) => new Agent({ keepAlive: true, maxSockets: 32, localAddress: `127.0.0.${index + 1}` }),
);

function call(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent: Agent },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const request = httpRequest(url, {
      method: options.method ?? 'GET',
      headers,
      agent: options.agent,
      timeout: 30_000,
    });
    request.on('timeout', () => request.destroy(new Error('timed out after 30 s')));
    request.on('error', reject);
    request.on('response', (response) => {
      text(response).then(
        (body) =>
          resolve({
            status: response.statusCode ?? 0,
            body,
            cursor: response.headers['menu-cursor'] as string | undefined,
          }),
        reject,
      );
    });
    request.end(options.body);
  });
}

/** CPU time the process has used (user and system), ms. */
function cpuMs(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      const fields = readFileSync(`/proc/${member}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime and stime are fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // A worker that just exited.
    }
  }
  return total;
}

/** The server's V8 heap in use and its external (native) memory, from its own /metrics. */
async function heap(
  opsUrl: string,
): Promise<{ used: number; total: number; external: number; snapshots: number }> {
  const text = await new Promise<string>((resolve, reject) => {
    httpRequest(`${opsUrl}/metrics`, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]);
  return {
    used: value('nodejs_heap_size_used_bytes'),
    total: value('nodejs_heap_size_total_bytes'),
    external: value('nodejs_external_memory_bytes'),
    snapshots: value('menu_api_snapshot_cache_bytes\\{view="all"\\}'),
  };
}

/** The process and its children (the workers of `serve --workers N`). */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // Gone, or no children file on this kernel.
  }
  return [pid, ...children];
}

/** Resident memory of each process of the tree, by pid. */
function memberMemory(pid: number): Map<number, number> {
  const members = new Map<number, number>();
  for (const member of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${member}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      if (match) members.set(member, Number(match[1]) * 1024);
    } catch {
      // A worker that just exited.
    }
  }
  return members;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function startServer(
  db: string,
): Promise<{ child: ChildProcess; url: string; opsUrl: string; output: () => string }> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      '--db',
      db,
      'serve',
      '--port',
      '0',
      '--ops-port',
      '0',
      '--json',
      '--log-level',
      'warn',
      '--workers',
      String(WORKERS),
      // The webhook receiver is on loopback, which webhooks may reach only with this.
      '--webhook-allow-private',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const url = /"url": "(http:\/\/[^"]+)"/.exec(output)?.[1];
    const opsUrl = /"ops_url": "(http:\/\/[^"]+)"/.exec(output)?.[1];
    if (url && opsUrl) return { child, url, opsUrl, output: () => output };
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`the server did not start:\n${output}`);
}

type Operation =
  | 'b-menu'
  | 'a-menu'
  | 'b-store'
  | 'a-store'
  | 'b-inventory'
  | 'a-inventory'
  | 'patch-item'
  | 'patch-store'
  | 'full-sync'
  | 'stock'
  | 'stock-check';

/** The operation of the mix at `roll` (0 to the sum of the weights). */
function operationAt(roll: number): Operation {
  let left = roll;
  for (const [operation, weight] of MIX) {
    if (left < weight) return operation;
    left -= weight;
  }
  return MIX[0]![0];
}

/**
 * The steady mix (weights out of 100). On their own schedules: a stock change every second (checked by
 * the next inventory read) and a full sync of the whole menu every --full-sync-seconds.
 */
const MIX: [Operation, number][] = [
  ['b-menu', 28],
  ['a-menu', 20],
  ['b-store', 6],
  ['a-store', 6],
  ['b-inventory', 16],
  ['a-inventory', 14],
  ['patch-item', 6],
  ['patch-store', 3],
];

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'menu-api-soak-'));
  const postgres = !args.db && DATABASE === 'postgres' ? await createPostgresDatabase() : undefined;
  const db = args.db ?? postgres?.url ?? join(folder, 'soak.db');
  console.error(
    `soak: preparing ${db} (${CREDENTIALS} credentials, ${ADMIN_KEYS} admin keys, ${ITEMS} items)`,
  );
  const dispensary = await cli<{ id: number; token: string }>(db, [
    'dispensary',
    'create',
    '--name',
    `Soak ${Date.now()}`,
  ]);
  const run = Date.now().toString(36);
  const credentials = await inBatches([...Array(CREDENTIALS).keys()], 2, (index) =>
    cli<{ username: string; password: string }>(db, [
      'credential',
      'issue',
      '--username',
      `soak-${run}-${index}`,
    ]),
  );
  const keys = await inBatches(
    [...Array(ADMIN_KEYS).keys()],
    2,
    async (index) =>
      (
        await cli<{ key: string }>(db, [
          'admin-key',
          'create',
          '--scope',
          `dispensary:${dispensary.id}`,
          '--name',
          `soak-${run}-${index}`,
        ])
      ).key,
  );
  const menuFile = join(folder, 'menu.json');
  writeFileSync(menuFile, JSON.stringify(menu(ITEMS, 0)));
  await cli(db, ['menu', 'import', '--dispensary', String(dispensary.id), menuFile]);
  // A webhook of the first credential to a receiver of this process: every change after the import.
  const receiver = await startWebhookReceiver();
  const webhook = await cli<{ secret: string }>(db, [
    '--webhook-allow-private',
    'webhook',
    'add',
    '--credential',
    credentials[0]!.username,
    '--dispensary',
    String(dispensary.id),
    '--url',
    receiver.url,
  ]);
  receiver.useSecret(webhook.secret);

  const server = await startServer(db);
  const pid = server.child.pid!;
  console.error(`soak: server ${pid} at ${server.url} (ops ${server.opsUrl})`);

  const base = `${server.url}`;
  const adminBase = `${base}/admin/v1/dispensaries/${dispensary.id}`;
  let sequence = 0;
  // Each list gets its own round-robin, so that every credential, key and address takes its share.
  const turns = new Map<unknown[], number>();
  const pick = <T>(list: T[]): T => {
    const turn = turns.get(list) ?? 0;
    turns.set(list, turn + 1);
    sequence++;
    return list[turn % list.length]!;
  };
  const formB = (credential: { username: string; password: string }) => ({
    store: dispensary.token,
    username: credential.username,
    password: credential.password,
  });
  const formA = (credential: { username: string; password: string }, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      username: credential.username,
      password: credential.password,
      collective_token: dispensary.token,
      ...extra,
    });
  /** A Form A read: a POST of the credential (and `extra`) as JSON. */
  const postFormA = (
    path: string,
    credential: { username: string; password: string },
    agent: Agent,
    extra: Record<string, unknown> = {},
  ) =>
    call(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: formA(credential, extra),
      agent,
    });
  const admin = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  const recentSince = () => new Date(Date.now() - 5_000).toISOString();

  let round = 0;
  const fullSyncs = { running: 0, epoch: 0 };
  let checksSkipped = 0;
  async function perform(operation: Operation): Promise<Answer> {
    const agent = pick(agents);
    const credential = pick(credentials);
    const key = pick(keys);
    switch (operation) {
      case 'b-menu':
        return call(`${base}/menu`, { headers: formB(credential), agent });
      case 'a-menu':
        return postFormA('/menu', credential, agent);
      case 'b-store':
        return call(`${base}/store`, { headers: formB(credential), agent });
      case 'a-store':
        return postFormA('/store', credential, agent);
      case 'b-inventory':
        return call(`${base}/inventory?since=${encodeURIComponent(recentSince())}`, {
          headers: formB(credential),
          agent,
        });
      case 'a-inventory':
        return postFormA('/inventory', credential, agent, { since: recentSince() });
      case 'patch-item': {
        const item = 1 + (sequence % ITEMS);
        return call(`${adminBase}/menu/items/${item}`, {
          method: 'PATCH',
          headers: admin(key),
          body: JSON.stringify({ description: `Patched at ${Date.now()}` }),
          agent,
        });
      }
      case 'patch-store':
        return call(adminBase, {
          method: 'PATCH',
          headers: admin(key),
          body: JSON.stringify({ phone: `+1 555 ${String(sequence % 10_000).padStart(4, '0')}` }),
          agent,
        });
      case 'full-sync': {
        round++;
        // A full sync resets stock levels: the stock check skips a window that overlaps one.
        fullSyncs.running++;
        fullSyncs.epoch++;
        try {
          return await call(`${adminBase}/menu`, {
            method: 'PUT',
            headers: admin(key),
            body: JSON.stringify(menu(ITEMS, round)),
            agent,
          });
        } finally {
          fullSyncs.running--;
          fullSyncs.epoch++;
        }
      }
      default:
        throw new Error(`not a mixed operation: ${operation}`);
    }
  }

  interface Sample {
    operation: Operation;
    ms: number;
  }
  let measuring = false;
  /** performance.now() when the measurement began, to say when each error's request was sent. */
  let measureStarted = Number.POSITIVE_INFINITY;
  const samples: Sample[] = [];
  const errors: string[] = [];
  const counts = new Map<Operation, number>();
  let inFlight = 0;
  let maxInFlight = 0;

  const record = (operation: Operation, started: number, problem?: string) => {
    // Warm-up errors count too: an error is an error.
    if (problem) {
      const phase =
        started < measureStarted
          ? 'in the warm-up'
          : `at ${((started - measureStarted) / 1_000).toFixed(0)} s of the measurement`;
      errors.push(`${operation}: ${problem} (sent ${phase})`);
    }
    if (!measuring) return;
    samples.push({ operation, ms: performance.now() - started });
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
  };

  // Every operation of the mix answers 200 when it works.
  const expected = (_operation: Operation) => 200;
  const fire = (operation: Operation) => {
    const started = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    perform(operation)
      .then((answer) => {
        record(
          operation,
          started,
          answer.status === expected(operation) ? undefined : `${answer.status} ${answer.body.slice(0, 200)}`,
        );
      })
      .catch((error: Error) => record(operation, started, `connection: ${error.message}`))
      .finally(() => {
        inFlight--;
      });
  };

  // The stock change, once a second, and a check that the next inventory read shows it.
  let stockRound = 0;
  const stockChanges: StockChange[] = [];
  const stockChange = async () => {
    const item = 1 + (stockRound % ITEMS);
    const stock = 1_000 + stockRound++;
    const started = performance.now();
    const agent = pick(agents);
    const epoch = fullSyncs.epoch;
    const quiet = fullSyncs.running === 0;
    try {
      const answer = await call(`${adminBase}/inventory`, {
        method: 'PATCH',
        headers: admin(pick(keys)),
        body: JSON.stringify([{ item_id: item, unit: 'gram', amount: 1, stock }]),
        agent,
      });
      record(
        'stock',
        started,
        answer.status === 200 ? undefined : `${answer.status} ${answer.body.slice(0, 200)}`,
      );
      if (answer.status !== 200) return;
      // An inactive item is not in the active menu: its stock change is no change of the feed.
      if ((item - 1) % 17 !== 0) stockChanges.push({ itemId: item, stock, answeredAt: performance.now() });
      const checkStarted = performance.now();
      const read = await call(`${base}/inventory`, { headers: formB(pick(credentials)), agent });
      if (!quiet || fullSyncs.running > 0 || fullSyncs.epoch !== epoch) {
        if (measuring) checksSkipped++;
        return;
      }
      const entries =
        read.status === 200
          ? (JSON.parse(read.body) as { item_id: number; unit: string; amount: number; stock: number }[])
          : [];
      const entry = entries.find(
        (candidate) => candidate.item_id === item && candidate.unit === 'gram' && candidate.amount === 1,
      );
      // An inactive item is not listed; otherwise the stock must be the one just written.
      const stale =
        read.status !== 200
          ? `${read.status}`
          : entry && entry.stock !== stock
            ? `stale stock ${entry.stock}, wrote ${stock}`
            : undefined;
      record('stock-check', checkStarted, stale);
    } catch (error) {
      record('stock', started, `connection: ${(error as Error).message}`);
    }
  };

  // Warm-up: every credential once (each first login pays scrypt), then the mix at the full rate.
  const firstReads = await Promise.all(
    credentials.map((credential) => call(`${base}/menu`, { headers: formB(credential), agent: agents[0]! })),
  );
  // Nothing was written since the import: every change after this cursor must reach every channel.
  const baseline = firstReads[0]!.cursor;
  if (!baseline) throw new Error('the first /menu answer has no Menu-Cursor');
  const streams = Array.from({ length: 2 * STREAMS_PER_FORM }, (_, index) => {
    const credential = credentials[index % credentials.length]!;
    const formAStream = index % 2 === 1;
    return followStream(
      `${base}/events`,
      `${formAStream ? 'Form A' : 'Form B'} stream ${Math.floor(index / 2) + 1}`,
      baseline,
      {
        open: (cursor): StreamOpening =>
          formAStream
            ? {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: formA(credential, { after: cursor }),
              }
            : { method: 'GET', headers: { ...formB(credential), 'last-event-id': cursor } },
      },
      `127.0.0.${(index % ADDRESSES) + 1}`,
    );
  });

  const runFor = async (seconds: number) => {
    const began = performance.now();
    let sent = 0;
    let nextStock = began + 1_000;
    let nextFullSync = began + FULL_SYNC_SECONDS * 1_000;
    const total = MIX.reduce((sum, [, weight]) => sum + weight, 0);
    while (performance.now() - began < seconds * 1_000) {
      const now = performance.now();
      const due = Math.floor(((now - began) / 1_000) * RATE);
      while (sent < due) {
        const operation = operationAt((sent * 7919) % total);
        fire(operation);
        sent++;
      }
      if (now >= nextStock) {
        nextStock += 1_000;
        void stockChange();
      }
      if (now >= nextFullSync) {
        nextFullSync += FULL_SYNC_SECONDS * 1_000;
        fire('full-sync');
      }
      await sleep(2);
    }
    while (inFlight > 0) await sleep(10);
  };

  console.error(`soak: warming up for ${WARMUP_SECONDS} s`);
  await runFor(WARMUP_SECONDS);
  const heapBefore = await heap(server.opsUrl);
  const loadBefore = loadavg()[0]!;
  const cpuBefore = cpuMs(pid);
  const rssSeries: number[] = [];
  // Each process's own series, to tell which one grows: the primary first, then the workers as they were
  // first seen (a worker that is replaced starts a series of its own).
  const perProcess = new Map<number, number[]>();
  // One read of /proc per sample gives both series: each process's and their sum.
  const sampleMemory = () => {
    let total = 0;
    for (const [member, resident] of memberMemory(pid)) {
      const series = perProcess.get(member) ?? [];
      series.push(resident);
      perProcess.set(member, series);
      total += resident;
    }
    rssSeries.push(total);
  };
  sampleMemory();
  const rssStart = rssSeries[0]!;
  // The V8 heap of all processes together every 30 s (from /metrics): what is allocated and what is live.
  const heapSeries: { used: number; total: number }[] = [heapBefore];
  measuring = true;
  measureStarted = performance.now();
  console.error(`soak: measuring for ${SECONDS} s at ${RATE} requests/s`);
  // A 10-minute run says where it is every 30 s (every sixth RSS sample).
  const sampler = setInterval(() => {
    sampleMemory();
    if (rssSeries.length % 6 === 1) {
      const seconds = ((performance.now() - measureStarted) / 1_000).toFixed(0);
      const each = [...perProcess.values()].map((series) => mib(series.at(-1)!)).join(' + ');
      console.error(
        `soak: ${seconds} s of ${SECONDS}: ${samples.length} requests, ${errors.length} errors, RSS ${mib(rssSeries.at(-1)!)}${perProcess.size > 1 ? ` (${each})` : ''}`,
      );
      heap(server.opsUrl).then(
        (sample) => heapSeries.push(sample),
        () => {
          // A scrape that failed under load leaves a gap in the series, not an error of the run.
        },
      );
    }
  }, 5_000);
  const began = Date.now();
  await runFor(SECONDS);
  const elapsed = (Date.now() - began) / 1_000;
  clearInterval(sampler);
  measuring = false;
  sampleMemory();
  const rssEnd = rssSeries.at(-1)!;
  const loadAfter = loadavg()[0]!;
  const heapAfter = await heap(server.opsUrl);
  heapSeries.push(heapAfter);
  const cpuUsed = cpuMs(pid) - cpuBefore;

  // Push: every change of the feed since the baseline must reach every stream and the receiver.
  console.error('soak: waiting for the push channels to deliver the last changes');
  const channels = [...streams.map((stream) => stream.arrivals), receiver.arrivals];
  const feed = await readFeed(base, () => formB(pick(credentials)), baseline);
  const deliveryStarted = performance.now();
  while (!allDelivered(channels, feed) && performance.now() - deliveryStarted < DELIVERY_GRACE_MS) {
    await sleep(250);
  }
  const drainMs = performance.now() - deliveryStarted;
  for (const stream of streams) stream.stop();
  const stockCursor = stockCursors(feed, stockChanges);
  const deliveries: Delivery[] = channels.map((arrivals) => delivery(arrivals, feed, stockCursor));
  if (stockCursor.size < stockChanges.length) {
    errors.push(
      `push: ${stockChanges.length - stockCursor.size} stock changes answered 200 are not in the feed`,
    );
  }
  for (const channel of deliveries) {
    errors.push(...channel.problems);
    if (channel.missing.length > 0) {
      errors.push(
        `push: ${channel.name} never received ${channel.missing.length} of ${channel.made} changes (cursors ${channel.missing.slice(0, 5).join(', ')}${channel.missing.length > 5 ? ', …' : ''})`,
      );
    }
  }

  // A graceful stop under (just finished) load: exit code 0.
  server.child.kill('SIGTERM');
  const exitCode = await new Promise<number | null>((resolve) => {
    if (server.child.exitCode !== null) resolve(server.child.exitCode);
    server.child.once('exit', (code) => resolve(code));
  });
  for (const agent of agents) agent.destroy();
  await receiver.close();

  const latencies = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const byOperation = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
  const perOperation = byOperation.map(([operation, count]) => {
    const own = samples
      .filter((sample) => sample.operation === operation)
      .map((sample) => sample.ms)
      .sort((a, b) => a - b);
    return `| ${operation} | ${count} | ${percentile(own, 50).toFixed(1)} | ${percentile(own, 99).toFixed(1)} |`;
  });
  const growth = ((rssEnd - rssStart) / rssStart) * 100;
  const heapTrend = (part: 'total' | 'used') =>
    quarterMeans(heapSeries.map((sample) => sample[part]))
      .map(mib)
      .join(' → ');
  const report = [
    `## ${setupTitle()}`,
    '',
    `\`npm run soak -- ${args.minutes !== undefined ? `--minutes ${args.minutes}` : `--seconds ${SECONDS}`} --rate ${RATE}${DATABASE === 'postgres' ? ' --database postgres' : ''}${WORKERS > 1 ? ` --workers ${WORKERS}` : ''}\` (a full sync every ${FULL_SYNC_SECONDS} s) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${args.db ? 'the given database' : DATABASE === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${WORKERS > 1 ? `${WORKERS} workers, ` : ''}${ITEMS} items,`,
    `${CREDENTIALS} credentials, ${ADMIN_KEYS} admin keys, ${ADDRESSES} client addresses, one stock change per second (each checked by the next inventory read), ${2 * STREAMS_PER_FORM} live streams and a webhook receiver.`,
    '',
    '| | |',
    '|---|---|',
    `| duration | ${elapsed.toFixed(1)} s (after a ${WARMUP_SECONDS} s warm-up) |`,
    `| requests | ${samples.length} (${(samples.length / elapsed).toFixed(1)}/s) |`,
    `| errors | ${errors.length} |`,
    `| latency p50 / p90 / p99 / max | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 90).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} / ${latencies.at(-1)?.toFixed(1)} ms |`,
    `| most requests in flight | ${maxInFlight} |`,
    `| server CPU | ${(cpuUsed / 1_000).toFixed(1)} s in ${elapsed.toFixed(0)} s (${((cpuUsed / (elapsed * 1_000)) * 100).toFixed(0)}% of a core), ${(cpuUsed / Math.max(1, samples.length)).toFixed(2)} ms per request |`,
    `| stock changes checked by the next read | ${counts.get('stock-check') ?? 0} of ${counts.get('stock') ?? 0} (${checksSkipped} overlapped a full sync, which resets stock) |`,
    `| server RSS start → middle → end | ${mib(rssStart)} → ${mib(rssSeries[Math.floor(rssSeries.length / 2)]!)} → ${mib(rssEnd)} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%)${WORKERS > 1 ? `, primary and ${WORKERS} workers together` : ''} |`,
    `| JS heap used, external memory start → end | ${mib(heapBefore.used)} → ${mib(heapAfter.used)}, ${mib(heapBefore.external)} → ${mib(heapAfter.external)} (from /metrics); snapshot cache ${mib(heapBefore.snapshots)} → ${mib(heapAfter.snapshots)} |`,
    `| RSS mean by quarter of the run | ${quarterMeans(rssSeries).map(mib).join(' → ')} (single samples swing with garbage collection; the trend is in these) |`,
    ...(perProcess.size > 1
      ? [...perProcess.entries()].map(
          ([member, series], index) =>
            `| RSS mean by quarter, ${index === 0 ? 'primary' : `worker ${index}`} (pid ${member}) | ${quarterMeans(series).map(mib).join(' → ')} |`,
        )
      : []),
    `| V8 heap allocated, and used, mean by quarter (every 30 s${WORKERS > 1 ? ', all processes together' : ''}) | ${heapTrend('total')}; used ${heapTrend('used')} |`,
    `| RSS every 5 s | ${rssSeries.map((value) => (value / 1024 / 1024).toFixed(0)).join(', ')} MiB |`,
    `| exit code after SIGTERM | ${exitCode} |`,
    `| machine | ${availableParallelism()} cores; load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end |`,
    '',
    '| operation | requests | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...perOperation,
    '',
    `Push: ${STREAMS_PER_FORM} live streams per form (\`/events\`, resumed with the last cursor when the server ends one) and a webhook receiver verifying each signature with \`standardwebhooks\`, all from the cursor before the warm-up. Changes made: every change of the feed since then (full syncs, patches, stock changes, warm-up included); delivered: received at least once, by cursor; duplicates: received again. Stock changes: each matched to its change by item and level; latency from the sync API's answer to the arrival (0 when it arrived first). The last changes were all delivered ${(drainMs / 1_000).toFixed(1)} s after the load ended${allDelivered(channels, feed) ? '' : ' (or not: see missing)'}.`,
    '',
    '| channel | changes made | delivered | missing | duplicates | stock changes delivered | stock latency p50 / p99 ms | resumed |',
    '|---|---|---|---|---|---|---|---|',
    ...deliveries.map(
      (channel) =>
        `| ${channel.name} | ${channel.made} | ${channel.delivered} | ${channel.missing.length} | ${channel.duplicates} | ${channel.stockDelivered} of ${channel.stockMade} | ${percentile(channel.latencies, 50).toFixed(1)} / ${percentile(channel.latencies, 99).toFixed(1)} | ${channel.resumed} |`,
    ),
    '',
    ...(errors.length > 0
      ? [
          'Errors (first 20):',
          '',
          ...errors.slice(0, 20).map((error) => `- ${error}`),
          '',
          `Errors by kind: ${errorKinds(errors)}.`,
          '',
        ]
      : []),
  ].join('\n');
  process.stdout.write(`${report}\n`);
  if (args.out) writeSection(args.out, report);
  if (!args.db) rmSync(folder, { recursive: true, force: true });
  await postgres?.drop();
  process.exitCode = errors.length === 0 && exitCode === 0 ? 0 : 1;
}

/** The setup a run measures, which names its section of bench/SOAK.md. */
function setupTitle(): string {
  const database = args.db ? 'The given database' : DATABASE === 'postgres' ? 'PostgreSQL' : 'SQLite';
  return `${database}, ${WORKERS > 1 ? `${WORKERS} workers` : 'one process'}`;
}

/**
 * Writes the report as its setup's section of `path` (bench/SOAK.md): a run replaces the last run of
 * the same setup (database and workers) and leaves the others' sections as they are.
 */
function writeSection(path: string, report: string): void {
  const key = setupTitle()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const section = `<!-- soak:${key}:start -->\n${report}\n<!-- soak:${key}:end -->\n`;
  const marked = new RegExp(`<!-- soak:${key}:start -->[\\s\\S]*<!-- soak:${key}:end -->\\n?`);
  const before = existsSync(path)
    ? readFileSync(path, 'utf8')
    : '# Soak test\n\nRuns of `npm run soak` (bench/soak.ts), the last of each setup.\n';
  writeFileSync(
    path,
    marked.test(before) ? before.replace(marked, () => section) : `${before.trimEnd()}\n\n${section}`,
  );
}

/** The errors counted by operation and what went wrong (request ids and times left out). */
function errorKinds(errors: readonly string[]): string {
  const kinds = new Map<string, number>();
  for (const error of errors) {
    const kind = error
      .replace(/ \(sent [^)]*\)$/, '')
      .replace(/"request_id":"[^"]*"/, '')
      .slice(0, 120);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds.entries()]
    .sort(([, a], [, b]) => b - a)
    .map(([kind, count]) => `${count} × ${kind}`)
    .join('; ');
}

/** A database of the soak's own on SOAK_POSTGRES_URL's server, dropped by `drop()`. */
async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const server = process.env.SOAK_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `menu_api_soak_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

/** The mean of each quarter of a series (the whole series when it is shorter than four). */
function quarterMeans(series: readonly number[]): number[] {
  const size = Math.floor(series.length / 4);
  if (size === 0) return [series.reduce((sum, value) => sum + value, 0) / Math.max(1, series.length)];
  return [0, 1, 2, 3].map((quarter) => {
    const part = series.slice(quarter * size, quarter === 3 ? series.length : (quarter + 1) * size);
    return part.reduce((sum, value) => sum + value, 0) / part.length;
  });
}
