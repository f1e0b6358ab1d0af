/**
 * `npx tsx bench/rich.ts`: the figures of issue 30, §5, for the rich item (lab results, batch, sizes)
 * and specials. Writes its section of bench/RESULTS.md (also a step of `npm run bench`).
 *
 * 1. A full sync of 5,000 rich items (each with 10 cannabinoids, 8 terpenes, a batch and 3 price
 *    entries with label, medical price, SKU and barcode), through the services as the sync API's
 *    `PUT /menu` calls them (validation and the write), on SQLite and PostgreSQL (a scratch database
 *    on BENCH_POSTGRES_URL, dropped afterwards; skipped when unreachable): into an empty menu, with
 *    every item changed, and with nothing changed. Target: under 1 s.
 * 2. A special starting (and ending) on 1,000 of the 5,000 items, on a real `bin/menu-api serve`
 *    process and the real clock: RICH_BOUNDARIES boundaries (default 20), no write at any of them.
 *    Streams as clients: Form B `GET /events`, Form A `POST /events` and the public
 *    `/m/{slug}/events`; for each, the time from the boundary until it has every one of the 1,000
 *    items. Target: p99 under 1 s. Then the first Form B gzip read after the boundary (the kept
 *    snapshot, read after the boundary before, is patched with the 1,000 items the feed names right
 *    after the boundary's notice, or still on that read) against the read after it. Target: the
 *    patch under 50 ms.
 * 3. The snapshot cache's bytes (`menu_api_snapshot_cache_bytes{view="all"}`) and the server's RSS
 *    once every view of the 5,000-item rich menu has been read, beside the same for a 5,000-item
 *    menu of the specification's fields only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MENU_FORMS } from '../src/forms/index.js';
import { tuneHeapForServing } from '../src/infra/heap-tuning.js';
import { createServices } from '../src/services/index.js';
import { openStore } from '../src/store/open.js';
import { realisticMenu, richMenu } from './lib/data.js';
import { fetchRaw } from './lib/http.js';
import { cpuMs, currentRss, ensureBuilt, progressLog, ROOT, sleep, TASKSET, timed } from './lib/processes.js';
import { writeResultsSection } from './lib/results.js';
import { startMenuServer } from './lib/server.js';
import { median } from './lib/writes.js';

const ITEMS = 5000;
/** Every fifth item is tagged `weekly`: the 1,000 items the special targets. */
const TARGETED = ITEMS / 5;
const SYNC_ROUNDS = 5;
const BOUNDARIES = Number(process.env.RICH_BOUNDARIES ?? 20);
/** Time between two boundaries: room for every stream to finish and the reads after it. */
const BOUNDARY_GAP_MS = 2_000;
/** `sync`, `specials` (with the kept snapshot) or both (unset): one part alone while working on it. */
const ONLY = process.env.RICH_ONLY;
/** From the set-up's start (menu, specials, server, streams) to the first boundary. */
const LEAD_MS = Number(process.env.RICH_LEAD_MS ?? 240_000);
/** A label: the rich menu's server runs under `--cpu-prof`, its profile kept in bench/profiles/LABEL/ (not committed). */
const PROFILE = process.env.RICH_PROFILE;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MB = 1024 * 1024;

const started = Date.now();
const loadAtStart = loadavg();
const log = progressLog('', started);
ensureBuilt(log);

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '∞');
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

// 1. Full sync.

interface SyncTimes {
  database: 'SQLite' | 'PostgreSQL';
  /** Into an empty menu: 5,000 items written, ms per round, each round into a dispensary of its own. */
  firstMs: number[];
  /** Every item changed (one cannabinoid value and one stock level each), ms per round. */
  changedMs: number[];
  /** The same menu again: nothing written. */
  unchangedMs: number[];
  /** This process's CPU time (user + system) of each: steadier than the wall clock on a shared machine; PostgreSQL's own work is not in it. */
  cpu: { firstMs: number[]; changedMs: number[]; unchangedMs: number[] };
}

async function measureSync(address: string, database: SyncTimes['database']): Promise<SyncTimes> {
  tuneHeapForServing();
  const store = await openStore(address);
  try {
    const services = createServices(store, MENU_FORMS);
    const base = richMenu(ITEMS, 1);
    // The same items with one lab value and one stock level moved: every item is a change.
    const moved = base.map((item) => {
      const [first, ...rest] = item.cannabinoids as { min: number; max: number }[];
      const [size, ...sizes] = item.prices as { stock: number }[];
      return {
        ...item,
        cannabinoids: [{ ...first, min: first!.min + 0.01, max: first!.max + 0.01 }, ...rest],
        prices: [{ ...size, stock: size!.stock + 1 }, ...sizes],
      };
    });
    const syncInto = (id: number, menu: Record<string, unknown>[]) =>
      timed(() => services.menus.replace(id, services.menus.validate(menu)));
    const cpu: SyncTimes['cpu'] = { firstMs: [], changedMs: [], unchangedMs: [] };
    // Into an empty menu: each round into a dispensary of its own, created for it (not timed). One
    // sample, the process's very first sync, was the noisiest figure of the three and read as the verdict.
    const firstMs: number[] = [];
    let id = 0;
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      ({ id } = await services.dispensaries.create(`Rich sync ${round + 1}`));
      const [wall, used] = await syncInto(id, base);
      firstMs.push(wall);
      cpu.firstMs.push(used);
    }
    // The other two cases on the last of them.
    const sync = (menu: Record<string, unknown>[]) => syncInto(id, menu);
    const changedMs: number[] = [];
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      const [wall, used] = await sync(round % 2 === 0 ? moved : base);
      changedMs.push(wall);
      cpu.changedMs.push(used);
    }
    const last = SYNC_ROUNDS % 2 === 0 ? base : moved;
    const unchangedMs: number[] = [];
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      const [wall, used] = await sync(last);
      unchangedMs.push(wall);
      cpu.unchangedMs.push(used);
    }
    return { database, firstMs, changedMs, unchangedMs, cpu };
  } finally {
    await store.close();
  }
}

const syncs: SyncTimes[] = [];
if (ONLY !== 'specials') {
  const folder = mkdtempSync(join(tmpdir(), 'menu-api-rich-sync-'));
  try {
    log('full sync of 5,000 rich items, SQLite');
    syncs.push(await measureSync(join(folder, 'menu.db'), 'SQLite'));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  let reachable = true;
  try {
    await admin.connect();
  } catch (error) {
    reachable = false;
    log(`PostgreSQL unreachable (${(error as Error).message}): the sync is measured on SQLite only`);
  }
  if (reachable) {
    const name = `menu_api_bench_${randomBytes(4).toString('hex')}`;
    try {
      await admin.query(`create database ${name}`);
      const url = new URL(POSTGRES_URL);
      url.pathname = `/${name}`;
      log('full sync of 5,000 rich items, PostgreSQL');
      syncs.push(await measureSync(url.toString(), 'PostgreSQL'));
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }
}
for (const sync of syncs)
  log(
    `${sync.database}: into an empty menu ${sync.firstMs.map(ms).join(', ')} ms (CPU median ${ms(median(sync.cpu.firstMs))}), every item changed ${sync.changedMs.map(ms).join(', ')} ms (CPU median ${ms(median(sync.cpu.changedMs))}), unchanged ${sync.unchangedMs.map(ms).join(', ')} ms (CPU median ${ms(median(sync.cpu.unchangedMs))})`,
  );

// 2. and 3. A real server.

interface Fixture {
  id: number;
  token: string;
  username: string;
  password: string;
  adminKey: string;
}

/** A dispensary with `menu` (every item active), a credential and an admin key, through the services. */
async function setUp(
  database: string,
  menu: Record<string, unknown>[],
  boundaries: readonly number[] = [],
): Promise<Fixture> {
  const store = await openStore(database);
  try {
    const services = createServices(store, MENU_FORMS);
    const { id, token } = await services.dispensaries.create('Rich Bench');
    await services.menus.replace(
      id,
      services.menus.validate(menu.map((item) => ({ ...item, active: true }))),
    );
    // The specials are written before the server starts (it plans their boundaries as it starts):
    // written through its sync API on a loaded machine, ten of them took longer than their lead.
    for (let index = 0; index < boundaries.length; index += 2) {
      await services.specials.create(id, {
        name: `Weekly ${index / 2 + 1}`,
        kind: 'percent_off',
        value: 10,
        applies_to: { tags: ['weekly'] },
        starts_at: new Date(boundaries[index]!).toISOString(),
        ends_at: new Date(boundaries[index + 1] ?? boundaries[index]! + BOUNDARY_GAP_MS).toISOString(),
      });
    }
    const credential = await services.credentials.issue('bench-rich');
    const admin = await services.adminKeys.create('bench-rich', 'all');
    return { id, token, username: credential.username, password: credential.password, adminKey: admin.key };
  } finally {
    await store.close();
  }
}

interface StreamLog {
  name: string;
  status: number;
  /** Each event's arrival (Date.now()), the item ids it names, and when the server recorded the change (the feed's `at`). */
  events: { at: number; ids: number[]; recorded?: number }[];
  close(): void;
}

/** An event stream read as a client; `idsOf` reads the item ids an event's data names. */
function openStream(
  name: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
  idsOf: (event: string, data: unknown) => number[],
): Promise<StreamLog> {
  return new Promise((resolve, reject) => {
    const log: StreamLog = {
      name,
      status: 0,
      events: [],
      close: () => request.destroy(),
    };
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        log.status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        let pending = '';
        response.on('data', (chunk: string) => {
          const at = Date.now();
          pending += chunk;
          let end = pending.indexOf('\n\n');
          while (end >= 0) {
            const block = pending.slice(0, end);
            pending = pending.slice(end + 2);
            end = pending.indexOf('\n\n');
            let event = 'message';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data += line.slice(5).trim();
            }
            if (data === '') continue;
            const parsed = JSON.parse(data) as { at?: string };
            const ids = idsOf(event, parsed);
            if (ids.length > 0)
              log.events.push({ at, ids, ...(parsed.at ? { recorded: Date.parse(parsed.at) } : {}) });
          }
        });
        response.on('error', () => {});
        resolve(log);
      },
    );
    request.on('error', (error) => (log.status === 0 ? reject(error) : undefined));
    request.end(options.body);
  });
}

/**
 * When a stream had every item of each boundary, ms after the boundary. A feed stream (Form A, B)
 * carries each boundary's items as one run of events in order, and nothing else was written: the
 * k-th boundary is complete with its (k+1)·n-th event. The public stream sends the difference of the
 * menu it read again: a boundary is complete with the first update after it that names all n items
 * (two boundaries read as one, which would send nothing, count as missed).
 */
function boundaryTimes(
  stream: StreamLog,
  wanted: ReadonlySet<number>,
  boundaries: number[],
  feed: boolean,
): { arrived: number[]; recorded: number[] } {
  const arrived: number[] = [];
  const recorded: number[] = [];
  for (const [index, boundary] of boundaries.entries()) {
    if (feed) {
      const last = stream.events[(index + 1) * wanted.size - 1];
      const first = stream.events[index * wanted.size];
      arrived.push(last ? last.at - boundary : Number.POSITIVE_INFINITY);
      recorded.push(first?.recorded !== undefined ? first.recorded - boundary : Number.POSITIVE_INFINITY);
    } else {
      const update = stream.events.find(
        (event) => event.at >= boundary && event.ids.filter((id) => wanted.has(id)).length === wanted.size,
      );
      arrived.push(update ? update.at - boundary : Number.POSITIVE_INFINITY);
    }
  }
  return { arrived, recorded };
}

/** Whether the stream has the events of every boundary up to `index`, read as boundaryTimes does. */
function hasBoundary(
  stream: StreamLog,
  wanted: ReadonlySet<number>,
  index: number,
  boundary: number,
  feed: boolean,
) {
  return feed
    ? stream.events.length >= (index + 1) * wanted.size
    : stream.events.some(
        (event) => event.at >= boundary && event.ids.filter((id) => wanted.has(id)).length === wanted.size,
      );
}

async function admin(fixture: Fixture, base: string, method: string, path: string, body?: unknown) {
  const response = await fetchRaw(`${base}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${fixture.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${path} answered ${response.status}: ${response.body.toString()}`);
  return JSON.parse(response.body.toString() || 'null') as unknown;
}

/** Reads every view of the dispensary once (building its snapshots), then the cache's bytes and the RSS. */
async function keptSnapshot(url: string, pid: number, fixture: Fixture, slug: string) {
  const formB = { store: fixture.token, username: fixture.username, password: fixture.password };
  const formA = JSON.stringify({
    username: fixture.username,
    password: fixture.password,
    collective_token: fixture.token,
  });
  for (const coding of ['gzip', 'br', 'identity']) {
    await fetchRaw(`${url}/menu`, { headers: { ...formB, 'accept-encoding': coding } });
    await fetchRaw(`${url}/menu`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-encoding': coding },
      body: formA,
    });
    for (const path of [`/m/${slug}`, `/m/${slug}/menu.json`, `/board/${slug}`])
      await fetchRaw(`${url}${path}`, { headers: { 'accept-encoding': coding } });
  }
  const metrics = (await fetchRaw(`${url}/metrics`)).body.toString();
  const bytes = Number(/menu_api_snapshot_cache_bytes\{view="all"\} (\d+)/.exec(metrics)?.[1] ?? Number.NaN);
  return { bytes, rss: currentRss(pid) };
}

const work = mkdtempSync(join(tmpdir(), 'menu-api-rich-'));
const boundaryRows: { stream: string; ms: number[] }[] = [];
/** From each boundary to the feed's record of its first item (the server's clock). */
let recordedRow: number[] = [];
/** The server's CPU time (user + system, every thread) per boundary: its recording, the streams, the two reads after it. */
let boundaryCpuMs = Number.NaN;
/** The first read after each boundary and the next one: wall time, and the server's CPU time (/proc, 10 ms ticks) of each. */
const firstReads: { first: number; next: number; firstCpu: number; nextCpu: number }[] = [];
let kept: { rich: { bytes: number; rss: number }; plain: { bytes: number; rss: number } } | undefined;
const SERVE_ARGS = ['--stream-max-backlog', '100000'];
if (ONLY !== 'sync')
  try {
    const database = join(work, 'rich.db');
    log('setting up a 5,000-item rich menu');
    const menu = richMenu(ITEMS, 1);
    // Boundaries on whole seconds, BOUNDARY_GAP_MS apart, far enough ahead for the set-up (checked below).
    const first = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
    const boundaries = Array.from({ length: BOUNDARIES }, (_, index) => first + index * BOUNDARY_GAP_MS);
    const fixture = await setUp(database, menu, boundaries);
    const server = await startMenuServer({
      database,
      logLevel: 'warn',
      serveArgs: SERVE_ARGS,
      nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench/profiles', PROFILE)}`] : [],
    });
    try {
      const slug = 'rich-bench';
      await admin(fixture, server.url, 'PATCH', `/dispensaries/${fixture.id}`, { published: true, slug });
      const stored = (await admin(fixture, server.url, 'GET', `/dispensaries/${fixture.id}/menu`)) as {
        id: number;
        tags: string[];
      }[];
      const wanted = new Set(stored.filter((item) => item.tags.includes('weekly')).map((item) => item.id));
      if (wanted.size !== TARGETED) throw new Error(`${wanted.size} items tagged weekly, not ${TARGETED}`);

      const formBHeaders = { store: fixture.token, username: fixture.username, password: fixture.password };
      const itemId = (_event: string, data: unknown) => {
        const id = (data as { item_id?: number }).item_id;
        return typeof id === 'number' ? [id] : [];
      };
      // The streams start at the menu's cursor: no replay of the menu's making, only what comes after.
      const menuRead = await fetchRaw(`${server.url}/menu`, { headers: formBHeaders });
      const cursor = String(menuRead.headers['menu-cursor'] ?? '');
      if (menuRead.status !== 200 || cursor === '')
        throw new Error(`the menu read answered ${menuRead.status}`);
      const streams = [
        await openStream(
          'Form B `GET /events`',
          `${server.url}/events`,
          { headers: { ...formBHeaders, 'last-event-id': cursor } },
          itemId,
        ),
        await openStream(
          'Form A `POST /events`',
          `${server.url}/events`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'last-event-id': cursor },
            body: JSON.stringify({
              username: fixture.username,
              password: fixture.password,
              collective_token: fixture.token,
            }),
          },
          itemId,
        ),
        await openStream(
          `Public \`/m/{slug}/events\``,
          `${server.url}/m/${slug}/events`,
          {},
          (event, data) =>
            event === 'update'
              ? ((data as { items?: { id: number }[] }).items ?? []).map((item) => item.id)
              : [],
        ),
      ];
      for (const stream of streams)
        if (stream.status !== 200) throw new Error(`${stream.name} answered ${stream.status}`);

      if (Date.now() > first - 1_000)
        throw new Error(
          `the server and its streams took past the first boundary: raise LEAD_MS (${LEAD_MS})`,
        );
      log(`${BOUNDARIES} boundaries, ${BOUNDARY_GAP_MS} ms apart, from ${new Date(first).toISOString()}`);
      const cpuBefore = cpuMs(server.pid);
      for (const [index, boundary] of boundaries.entries()) {
        // Every stream done (or a second and a half gone), then the first read after the boundary.
        const deadline = boundary + 1_500;
        while (
          Date.now() < deadline &&
          streams.some((stream, at) => !hasBoundary(stream, wanted, index, boundary, at < 2))
        )
          await sleep(20);
        const read = () =>
          fetchRaw(`${server.url}/menu`, { headers: { ...formBHeaders, 'accept-encoding': 'gzip' } });
        const cpuAtFirst = cpuMs(server.pid);
        const firstRead = await read();
        const cpuAtNext = cpuMs(server.pid);
        const nextRead = await read();
        if (firstRead.status !== 200)
          throw new Error(`the read after a boundary answered ${firstRead.status}`);
        firstReads.push({
          first: firstRead.ms,
          next: nextRead.ms,
          firstCpu: cpuAtNext - cpuAtFirst,
          nextCpu: cpuMs(server.pid) - cpuAtNext,
        });
        if (index < boundaries.length - 1)
          await sleep(Math.max(0, boundaries[index + 1]! - 100 - Date.now()));
      }
      await sleep(500);
      boundaryCpuMs = (cpuMs(server.pid) - cpuBefore) / BOUNDARIES;
      for (const [at, stream] of streams.entries()) {
        const times = boundaryTimes(stream, wanted, boundaries, at < 2);
        boundaryRows.push({ stream: stream.name, ms: times.arrived });
        if (at === 0) recordedRow = times.recorded;
        stream.close();
        log(
          `${stream.name}: ${stream.events.length} events; each boundary complete after ${times.arrived.map(ms).join(', ')} ms`,
        );
      }
      log(`recorded in the feed (server clock) after ${recordedRow.map(ms).join(', ')} ms`);
      log('kept snapshot of the rich menu');
      const rich = await keptSnapshot(server.url, server.pid, fixture, slug);
      await server.stop();

      // The same size of menu with the specification's fields only, for comparison.
      const plainDatabase = join(work, 'plain.db');
      const plainFixture = await setUp(plainDatabase, realisticMenu(ITEMS, 1));
      const plainServer = await startMenuServer({
        database: plainDatabase,
        logLevel: 'warn',
        serveArgs: SERVE_ARGS,
      });
      try {
        await admin(plainFixture, plainServer.url, 'PATCH', `/dispensaries/${plainFixture.id}`, {
          published: true,
          slug,
        });
        log('kept snapshot of the plain menu');
        kept = { rich, plain: await keptSnapshot(plainServer.url, plainServer.pid, plainFixture, slug) };
      } finally {
        await plainServer.stop();
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

// The report.
const loadAtEnd = loadavg();
const syncTable = syncs.map(
  (sync) =>
    `| ${sync.database} | ${ms(median(sync.firstMs))} (${sync.firstMs.map(ms).join(', ')}; CPU ${ms(median(sync.cpu.firstMs))}) | ${ms(median(sync.changedMs))} (${sync.changedMs.map(ms).join(', ')}; CPU ${ms(median(sync.cpu.changedMs))}) | ${ms(median(sync.unchangedMs))} (${sync.unchangedMs.map(ms).join(', ')}; CPU ${ms(median(sync.cpu.unchangedMs))}) | ${verdict(Math.max(median(sync.firstMs), median(sync.changedMs), median(sync.unchangedMs)) < 1000)} |`,
);
const boundaryTable = boundaryRows.map((row) => {
  const missed = row.ms.filter((value) => !Number.isFinite(value)).length;
  // The public menu carries no specials yet (see above): nothing to be late for.
  const outcome =
    row.stream.startsWith('Public') && missed === row.ms.length
      ? 'n/a'
      : verdict(quantile(row.ms, 0.99) < 1000);
  return `| ${row.stream} | ${ms(quantile(row.ms, 0.5))} | ${ms(quantile(row.ms, 0.99))} | ${ms(Math.max(...row.ms))} | ${missed} | ${outcome} |`;
});
const patchMs = firstReads.map((read) => Math.max(0, read.first - read.next));
const patchCpuMs = firstReads.map((read) => Math.max(0, read.firstCpu - read.nextCpu));
const firstMs = firstReads.map((read) => read.first);
const nextMs = firstReads.map((read) => read.next);
const mib = (bytes: number) => `${(bytes / MB).toFixed(1)} MiB`;
const section = `<!-- rich:start (written by bench/rich.ts) -->
## Rich items and specials (bench/rich.ts, issue 30 §5)

Run with \`npx tsx bench/rich.ts\` (also a step of \`npm run bench\`).

- Date: ${new Date().toISOString()}
- Machine: ${availableParallelism()} cores (nproc), ${cpus()[0]?.model ?? 'unknown CPU'}; Node ${process.version}; ${process.platform} ${process.arch}.
- Load average (1, 5, 15 min) at start: ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}; at end: ${loadAtEnd.map((value) => value.toFixed(2)).join(', ')}
- The run took ${((Date.now() - started) / 1000).toFixed(0)} s.

### Full sync of 5,000 rich items

Each item has 10 cannabinoids, 8 terpenes, a batch (package label, lab, certificate URL, tests), a strain and 3 price entries with label, medical price, SKU and barcode (bench/lib/data.ts, \`richMenu\`). Through the services as \`PUT /admin/v1/dispensaries/:id/menu\` calls them: validation, then one transaction. Wall time, ms, medians of ${SYNC_ROUNDS} (each round's in brackets; into an empty menu, each round into a new dispensary of its own, the other two on the last of them), and this process's CPU time (user + system; on a loaded machine steadier than the wall clock; PostgreSQL's own work is not in it). The target is read on the wall time. Run with tsx, as bench/writes.ts is: tsx names every function it compiles, which costs a little on top of the production bundle's.

| Database | Into an empty menu | Every item changed | Nothing changed | Under 1 s |
|---|--:|--:|--:|---|
${syncTable.join('\n')}

### A special starting on 1,000 items

\`bin/menu-api serve\` (production build, one process, SQLite${TASKSET ? ', pinned to core 0 with taskset' : ''}, \`${SERVE_ARGS.join(' ')}\` so that a stream 1,000 events behind is not cut), a 5,000-item rich menu, published; ${BOUNDARIES} boundaries of specials targeting the 1,000 items tagged \`weekly\` (${BOUNDARIES / 2} specials, each starting and ending), ${BOUNDARY_GAP_MS / 1000} s apart, on the real clock, with no write at any boundary. Each stream is read by this script as a client; the time is from the boundary until the stream has an event for every one of the 1,000 items (Form A and B: one \`item.upserted\` per item; the public stream: its \`update\` events' items).

The public stream sends the items whose published form changed: at a boundary, the 1,000 repriced items (their effective prices). The published menu it compares is patched after a menu change (only the items the feed names are read again, and only those and the items the specials now show otherwise are published and serialized again), not read whole.

| Stream | p50 ms | p99 ms | worst ms | boundaries missed | p99 under 1 s |
|---|--:|--:|--:|--:|---|
${boundaryTable.join('\n')}

The server's CPU time (user + system, every thread, from /proc) from just before the first boundary to half a second after the last, per boundary (the boundary's recording, every stream, the two reads after it): ${ms(boundaryCpuMs)} ms.

The scheduler's part (the server's clock, from the boundary to the \`at\` of the first of its changes in the feed): p50 ${ms(quantile(recordedRow, 0.5))} ms, p99 ${ms(quantile(recordedRow, 0.99))} ms.

The first Form B gzip \`GET /menu\` after each boundary (once the streams had it: the kept snapshot, read after the boundary before, is patched right after the boundary's change notice, re-reading the 1,000 items the feed names, and the read waits only if that is not done yet) against the read right after it, on fresh connections: first read p50 ${ms(quantile(firstMs, 0.5))} ms, worst ${ms(Math.max(...firstMs))} ms; next read p50 ${ms(quantile(nextMs, 0.5))} ms; the patch (first − next) p50 ${ms(quantile(patchMs, 0.5))} ms, p99 ${ms(quantile(patchMs, 0.99))} ms: ${verdict(quantile(patchMs, 0.99) < 50)} (target under 50 ms). The server's CPU time of the patch (the first read's − the next read's, from /proc in 10 ms ticks): p50 ${ms(quantile(patchCpuMs, 0.5))} ms, p99 ${ms(quantile(patchCpuMs, 0.99))} ms.

Where the time went, and what was done about it: bench/PROFILE.md, rounds twelve, fourteen and fifteen. In short: a sync's validation no longer writes each lab value's path or copies each analyte; a write serializes each item's lab results once (not three times); SQLite inserts item and price rows with kept statements, PostgreSQL with one statement per table (each column one array, unnest); PostgreSQL compresses long texts with lz4 instead of pglz; a boundary reads the pricing columns of the active items instead of the whole menu; a patch leaves alone the items whose text did not change; the public menu is patched with the items the feed names, and the public stream serializes only the items that changed; the items a change names are read once for every snapshot patching from the same cursor (round fifteen).

### Kept snapshot, 5,000 items

Every view read once in each coding (Form B and Form A \`/menu\`, the public page, \`menu.json\` and board; gzip, br, identity), then \`menu_api_snapshot_cache_bytes{view="all"}\` from \`/metrics\` and the process's RSS (VmRSS).

| Menu | Snapshot cache | Server RSS |
|---|--:|--:|
${kept ? `| 5,000 rich items | ${mib(kept.rich.bytes)} | ${mib(kept.rich.rss)} |\n| 5,000 items of the specification's fields (\`realisticMenu\`) | ${mib(kept.plain.bytes)} | ${mib(kept.plain.rss)} |` : '| not measured | | |'}
<!-- rich:end -->
`;
writeResultsSection('rich', section);
console.log(`\n${section}`);
log('wrote the rich section of bench/RESULTS.md');
