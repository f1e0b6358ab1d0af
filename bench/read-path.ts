/**
 * `npx tsx bench/read-path.ts [workload ...]`: the read workloads of `npm run bench` alone, each
 * against the ceiling, without the rebuild, mixed-load, scale and write runs: for comparing the
 * request path's CPU per request before and after a change. Workloads: b-gzip, b-identity, a-gzip,
 * b-304, b-gzip-50, 429, 403, and bench/v1.ts's two Form v1 reads, v1-gzip (the unfiltered menu, 500
 * items) and v1-filtered (a page of 100 from 5,000 items) (default: all). Knobs: BENCH_SECONDS (default 6), BENCH_CONNECTIONS (32),
 * SERVE_ARGS (more `serve` options, space-separated: what a feature costs, as with
 * SERVE_ARGS='--rate-limit-credential off --rate-limit-address off').
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCeiling } from './lib/ceiling.js';
import { generateDatabase } from './lib/data.js';
import { fetchRaw } from './lib/http.js';
import { formBRequest, measureWorkload, type Row } from './lib/measure.js';
import { ensureBuilt } from './lib/processes.js';
import { menuReads, type ReadWorkload } from './lib/read-workloads.js';
import { startMenuServer } from './lib/server.js';
import { V1_FILTERED, v1Request } from './lib/v1-requests.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const EXTRA_SERVE_ARGS = (process.env.SERVE_ARGS ?? '').split(' ').filter(Boolean);
const log = (message: string) => console.error(message);

ensureBuilt(log);
const work = mkdtempSync(join(tmpdir(), 'menu-api-read-path-'));
const database = join(work, 'menu.db');
const chosen = process.argv.slice(2);
// The 5,000-item menu takes a while to make: only for the workload that reads it.
const largest = chosen.length === 0 || chosen.includes('v1-filtered') ? [5000] : [];
const db = await generateDatabase(database, { sizes: [50, 500, ...largest], scale: 0 });
const sized = (items: number) => db.sized.find((dispensary) => dispensary.items === items)!;
const m500 = sized(500);

interface Workload extends ReadWorkload {
  revalidate?: boolean;
  /** Extra `serve` options (a refusing rate limit). */
  serveArgs?: string[];
}
const reads = menuReads(db.credential, m500);
const WORKLOADS: Record<string, Workload> = {
  'b-gzip': reads['b-gzip']!,
  'b-identity': reads['b-identity']!,
  'a-gzip': reads['a-gzip']!,
  'b-304': { ...reads['b-gzip']!, name: 'Form B, 304 revalidation, 500 items', revalidate: true },
  'b-gzip-50': { name: 'Form B, gzip, 50 items', request: formBRequest(db.credential, sized(50), 'gzip') },
  '429': {
    name: 'Form B, 429 (rate limited), 500 items',
    request: formBRequest(db.credential, m500, 'gzip'),
    status: 429,
    serveArgs: ['--rate-limit-address', '0.001,1'],
  },
  '403': reads['403']!,
  'v1-gzip': reads['v1-gzip']!,
  'v1-filtered': {
    name: 'Form v1, filtered page of 100, gzip, 5,000 items',
    request: v1Request(db.credential, largest.length > 0 ? sized(5000) : m500, 'gzip'),
    path: V1_FILTERED,
  },
};

const names = chosen.length > 0 ? chosen : Object.keys(WORKLOADS);
const rows: Row[] = [];
try {
  for (const key of names) {
    const workload = WORKLOADS[key];
    if (!workload) throw new Error(`no workload ${key}; one of ${Object.keys(WORKLOADS).join(', ')}`);
    const serveArgs = [...(workload.serveArgs ?? []), ...EXTRA_SERVE_ARGS];
    const server = await startMenuServer({ database, logLevel: 'warn', serveArgs });
    const refusing = workload.status !== undefined && workload.status >= 400;
    // A refusal is compared with a served read (the b-gzip row), not with a ceiling of its own.
    const ceiling = refusing ? undefined : await startCeiling(server);
    try {
      // The rate-limited workload's first request takes the one token of the bucket.
      if (workload.status === 429) await fetchRaw(`${server.url}/menu`, workload.request);
      const load = loadavg()[0]!.toFixed(2);
      const row = await measureWorkload(server, ceiling, workload.name, workload.request, {
        seconds: SECONDS,
        connections: CONNECTIONS,
        revalidate: workload.revalidate,
        status: workload.status,
        path: workload.path,
        log,
      });
      rows.push(row);
      const ratio = row.ceiling ? row.server.requestsPerSecond / row.ceiling.requestsPerSecond : Number.NaN;
      const p99 = row.ceiling ? row.server.p99 / Math.max(row.ceiling.p99, 0.001) : Number.NaN;
      console.log(
        [
          row.name.padEnd(40),
          `${row.server.requestsPerSecond.toFixed(0)} req/s`,
          row.ceiling
            ? `ceiling ${row.ceiling.requestsPerSecond.toFixed(0)} (${(ratio * 100).toFixed(0)} %)`
            : '',
          `CPU ${row.serverCpuUs.toFixed(1)} µs/req${row.ceilingCpuUs === undefined ? '' : ` (ceiling ${row.ceilingCpuUs.toFixed(1)})`}`,
          `p99 ${row.server.p99.toFixed(2)} ms${row.ceiling ? ` (${p99.toFixed(2)}×)` : ''}`,
          `load ${load}`,
          JSON.stringify(row.server.statusCodes),
        ]
          .filter(Boolean)
          .join(' | '),
      );
    } finally {
      await server.stop();
      await ceiling?.stop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
