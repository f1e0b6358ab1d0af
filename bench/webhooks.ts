/**
 * `npx tsx bench/webhooks.ts` (also run at the end of `npm run bench`): how long a stock change takes
 * to reach a webhook receiver. A receiver in this process records when each delivery arrives; stock
 * changes are sent one after the other (each waits for its delivery, so nothing queues), and each
 * latency runs from the change's acceptance (the sync API's answer) to the delivery's arrival; the
 * time from sending the change (the write included) is reported beside it.
 *
 * - SQLite, one server process: the change through its sync API, delivered by that process.
 * - PostgreSQL, two server processes: changes through either one's sync API, delivered by whichever
 *   claims it first (FOR UPDATE SKIP LOCKED).
 * - PostgreSQL, across processes: changes committed by this process (through the store, as the CLI
 *   writes), delivered by one of the two servers, woken by LISTEN/NOTIFY.
 *
 * Ceiling: a bare `node:http` POST of a body of the same size from this process to the same receiver,
 * measured in the same run: what sending alone costs. Results replace the "Webhooks" section of
 * bench/RESULTS.md. Knob: BENCH_WEBHOOK_CHANGES (per setup, default 1000).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MENU_FORMS } from '../src/forms/index.js';
import { createServices, type Services } from '../src/services/index.js';
import { webhookKeySource } from '../src/services/webhook-key.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/store.js';
import { realisticMenu } from './lib/data.js';
import { startRun } from './lib/processes.js';
import { writeResultsSection } from './lib/results.js';
import { type ServerUnderTest, startMenuServer } from './lib/server.js';

const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 1000);
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KEY = randomBytes(32).toString('base64');
const { started, loadAtStart, log } = startRun('webhooks: ');

/** The receiver: answers 204 and resolves whoever waits for the delivery of a stock value. */
const arrivals = new Map<number, (at: number) => void>();
const receiver = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const at = performance.now();
    response.writeHead(204).end();
    const stock = /"stock":(\d+)/.exec(Buffer.concat(parts).toString('utf8'));
    if (stock) arrivals.get(Number(stock[1]))?.(at);
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

interface Fixture {
  services: Services;
  store: Store;
  dispensaryId: number;
  adminKey: string;
}

/** A dispensary of 50 realistic items, an admin key, a credential and its webhook to the receiver. */
async function fixture(database: string): Promise<Fixture> {
  const store = await openStore(database, { poolSize: 2 });
  const services = createServices(store, MENU_FORMS, undefined, undefined, {
    keys: webhookKeySource(KEY, database, () => {}),
    allowPrivate: true,
  });
  const dispensary = await services.dispensaries.create('Webhook bench');
  await services.menus.replace(dispensary.id, services.menus.validate(realisticMenu(50, 7)));
  const credential = await services.credentials.issue('bench-integrator');
  const admin = await services.adminKeys.create('bench', 'all');
  await services.webhooks.create({
    credential: credential.username,
    dispensaryId: dispensary.id,
    url: receiverUrl,
    events: ['item.upserted'],
  });
  return { services, store, dispensaryId: dispensary.id, adminKey: admin.key };
}

/** The first price entry of the menu's first active item: what every change sets the stock of. */
async function target(fixture: Fixture) {
  const item = (await fixture.services.menus.items(fixture.dispensaryId)).find(
    (candidate) => candidate.active && candidate.prices.length > 0,
  );
  return { item_id: item!.id, unit: item!.prices[0]!.unit, amount: item!.prices[0]!.amount };
}

const agent = new Agent({ keepAlive: true });

/** PATCH inventory over a kept-alive connection; resolves when the answer is read. */
function patchStock(url: string, key: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
      agent,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      response.resume();
      response.on('end', () =>
        response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`)),
      );
    });
    request.end(body);
  });
}

/** Sends CHANGES stock changes with `change`, each waiting for its delivery; gives the latencies, ms. */
async function measure(
  label: string,
  change: (stock: number) => Promise<void>,
): Promise<{ latencies: number[]; withWrite: number[] }> {
  const latencies: number[] = [];
  const withWrite: number[] = [];
  // A few to warm up (connections, statements, JIT), not counted.
  for (let index = 0; index < CHANGES + 20; index++) {
    const stock = 100_000 + index + Math.floor(Math.random() * 10) * 1_000_000;
    const arrived = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${label}: delivery of change ${index} not received in 10 s`)),
        10_000,
      );
      arrivals.set(stock, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
    const sent = performance.now();
    await change(stock);
    const written = performance.now();
    const at = await arrived;
    arrivals.delete(stock);
    if (index >= 20) {
      // From the sync API's answer (the change accepted); a delivery that arrived before the answer
      // was read counts as 0.
      latencies.push(Math.max(0, at - written));
      withWrite.push(at - sent);
    }
  }
  log(
    `${label}: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (with the write: p50 ${percentile(withWrite, 50).toFixed(1)} ms, p99 ${percentile(withWrite, 99).toFixed(1)} ms)`,
  );
  return { latencies, withWrite };
}

/** The ceiling: a bare POST of `bytes` to the receiver, over a kept-alive connection. */
async function ceiling(bytes: number): Promise<number[]> {
  const body = JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 40)), stock: 0 });
  const latencies: number[] = [];
  for (let index = 0; index < CHANGES + 20; index++) {
    const sent = performance.now();
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest(receiverUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        agent,
      });
      request.on('error', reject);
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve());
      });
      request.end(body);
    });
    if (index >= 20) latencies.push(performance.now() - sent);
  }
  return latencies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const SERVE_ARGS = ['--webhook-allow-private', '--webhook-key', KEY];
const rows: { setup: string; latencies: number[]; withWrite: number[]; target: number | null }[] = [];

// 1. SQLite, one process.
{
  const folder = mkdtempSync(join(tmpdir(), 'menu-api-bench-webhooks-'));
  const database = join(folder, 'bench.db');
  const setup = await fixture(database);
  const entry = await target(setup);
  await setup.store.close();
  const server = await startMenuServer({ database, logLevel: 'warn', serveArgs: SERVE_ARGS });
  try {
    const url = `${server.url}/admin/v1/dispensaries/${setup.dispensaryId}/inventory`;
    const measured = await measure('SQLite, one process', (stock) =>
      patchStock(url, setup.adminKey, JSON.stringify([{ ...entry, stock }])),
    );
    rows.push({ setup: 'SQLite, one server process (change through its sync API)', ...measured, target: 50 });
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

// 2. PostgreSQL, two processes.
let postgresProblem: string | undefined;
const databaseName = `menu_api_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: POSTGRES });
try {
  await admin.connect();
  await admin.query(`create database ${databaseName}`);
} catch (error) {
  postgresProblem = error instanceof Error ? error.message : String(error);
  log(`PostgreSQL skipped: ${postgresProblem}`);
}
if (!postgresProblem) {
  const url = new URL(POSTGRES);
  url.pathname = `/${databaseName}`;
  const database = url.toString();
  const setup = await fixture(database);
  const entry = await target(setup);
  const servers: ServerUnderTest[] = [];
  try {
    servers.push(await startMenuServer({ database, logLevel: 'warn', serveArgs: SERVE_ARGS }));
    servers.push(await startMenuServer({ database, logLevel: 'warn', serveArgs: SERVE_ARGS }));
    let turn = 0;
    const throughEither = await measure('PostgreSQL, two processes', (stock) => {
      const server = servers[turn++ % 2]!;
      return patchStock(
        `${server.url}/admin/v1/dispensaries/${setup.dispensaryId}/inventory`,
        setup.adminKey,
        JSON.stringify([{ ...entry, stock }]),
      );
    });
    rows.push({
      setup: 'PostgreSQL, two server processes (changes through either one’s sync API)',
      ...throughEither,
      target: 250,
    });
    const across = await measure('PostgreSQL, written by another process', async (stock) => {
      await setup.services.menus.setStock(setup.dispensaryId, [{ ...entry, stock }]);
    });
    rows.push({
      setup: 'PostgreSQL, two server processes, changes committed by a third (LISTEN/NOTIFY)',
      ...across,
      target: 250,
    });
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await setup.store.close();
    await admin.query(`drop database if exists ${databaseName} with (force)`).catch(() => {});
  }
}
await admin.end().catch(() => {});

// 3. The ceiling, and the report.
const bare = await ceiling(1200);
receiver.close();
agent.destroy();

const fmt = (ms: number) => ms.toFixed(1);
const bareP50 = percentile(bare, 50);
const bareP99 = percentile(bare, 99);
const table = [
  '| Setup | Changes | p50 ms | p99 ms | max ms | With the write, p50 / p99 ms | p99 ÷ ceiling p99 | Target (p99) | |',
  '|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ...rows.map(({ setup, latencies, withWrite, target: goal }) => {
    const p99 = percentile(latencies, 99);
    return `| ${setup} | ${latencies.length} | ${fmt(percentile(latencies, 50))} | ${fmt(p99)} | ${fmt(Math.max(...latencies))} | ${fmt(percentile(withWrite, 50))} / ${fmt(percentile(withWrite, 99))} | ${fmt(p99 / bareP99)} | ${goal === null ? '–' : `< ${goal} ms`} | ${goal === null ? '' : p99 < goal ? 'met' : '**not met**'} |`;
  }),
  `| Ceiling: bare \`node:http\` POST of ~1.2 KB to the same receiver | ${bare.length} | ${fmt(bareP50)} | ${fmt(bareP99)} | ${fmt(Math.max(...bare))} | – | 1.0 | – | |`,
];
const section = `<!-- webhooks:start -->
## Webhooks: stock change to receiver

Written by \`npx tsx bench/webhooks.ts\` (also at the end of \`npm run bench\`).

- Date: ${new Date().toISOString()}
- Machine: ${availableParallelism()} cores, ${cpus()[0]?.model.trim() ?? 'unknown'}; Node ${process.version}; load average at start ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}, at end ${loadavg()
  .map((value) => value.toFixed(2))
  .join(', ')}
- Load generator and receiver: this script (one process, \`node:http\` with keep-alive). Each change is one \`PATCH /admin/v1/dispensaries/:id/inventory\` of one stock level (or, in the last PostgreSQL row, \`setStock\` through the store from this process); the next change is sent once the delivery arrived, so nothing queues. Latency: from the sync API's answer (the change accepted and committed) to the delivery's arrival at the receiver; a delivery that arrived before the answer was read counts as 0 ms. Beside it, from sending the change (the write included). In the last row, \`setStock\` resolving is the answer. 20 changes of warm-up are not counted.
- Servers: \`bin/menu-api serve --webhook-allow-private\` (production build), default settings otherwise (change poll 250 ms, which PostgreSQL's LISTEN/NOTIFY makes moot).${postgresProblem ? `\n- PostgreSQL rows missing: ${postgresProblem}.` : ''}
- The run took ${fmt((Date.now() - started) / 1000)} s.

${table.join('\n')}
<!-- webhooks:end -->
`;
writeResultsSection('webhooks', section);
console.log(`\n${table.join('\n')}\n`);
log('wrote the Webhooks section of bench/RESULTS.md');
