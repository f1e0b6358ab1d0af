/**
 * `npx tsx bench/profile.ts LABEL`: runs the real server under --cpu-prof, drives one workload at a
 * time (Form B gzip, Form A gzip, Form B 304, Form B identity, Form B 403 and 429, Form v1 whole and filtered
 * gzip, on the 500-item menu; Form v1 filtered also on the 5,000-item one, as bench/v1.ts reads it) and
 * prints where the time went.
 * The profiles and summaries land in bench/profiles/LABEL/ (not committed). PROFILE_ONLY (a comma-separated
 * list of workload names) profiles only those.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CpuProfile, formatSummary, summarize } from './lib/cpuprofile.js';
import { generateDatabase } from './lib/data.js';
import { fetchRaw } from './lib/http.js';
import { runLoad } from './lib/load.js';
import { ROOT } from './lib/processes.js';
import { startMenuServer } from './lib/server.js';

const label = process.argv[2] ?? 'now';
const seconds = Number(process.env.PROFILE_SECONDS ?? 5);
const outDir = join(ROOT, 'bench/profiles', label);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'menu-api-profile-'));
const database = join(work, 'menu.db');
const db = await generateDatabase(database, { sizes: [500, 5000], scale: 0 });
const dispensary = db.sized[0]!;
const large = db.sized[1]!;
const { username, password } = db.credential;

const workloads: {
  name: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  revalidate?: boolean;
  /** The path and query (default `/menu`). */
  path?: string;
  /** More `serve` options (a rate limit that refuses). */
  serveArgs?: string[];
  /** Sends one request before the warm-up (to take a bucket's one token). */
  prime?: boolean;
}[] = [
  {
    name: 'form-b-gzip',
    method: 'GET',
    headers: { store: dispensary.token, username, password, 'accept-encoding': 'gzip' },
  },
  {
    name: 'form-a-gzip',
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
    body: JSON.stringify({ username, password, collective_token: dispensary.token }),
  },
  {
    name: 'form-b-304',
    method: 'GET',
    headers: { store: dispensary.token, username, password, 'accept-encoding': 'gzip' },
    revalidate: true,
  },
  {
    name: 'form-b-identity',
    method: 'GET',
    headers: { store: dispensary.token, username, password },
  },
  {
    // A refusal: good credentials, a token nobody holds (must cost no more than a served read).
    name: 'form-b-403',
    method: 'GET',
    headers: { store: 'no-such-token', username, password, 'accept-encoding': 'gzip' },
  },
  {
    // A refusal: the address bucket's one token taken by the first request, every later one a 429.
    name: 'form-b-429',
    method: 'GET',
    headers: { store: dispensary.token, username, password, 'accept-encoding': 'gzip' },
    serveArgs: ['--rate-limit-address', '0.001,1'],
    prime: true,
  },
  {
    name: 'v1-whole-gzip',
    method: 'GET',
    path: '/v1/menu?limit=1000',
    headers: v1Headers(),
  },
  {
    name: 'v1-filtered-gzip',
    method: 'GET',
    path: '/v1/menu?product_type=Flower&sort=price&limit=100',
    headers: v1Headers(),
  },
  {
    name: 'v1-filtered-5000-gzip',
    method: 'GET',
    path: '/v1/menu?product_type=Flower&sort=price&limit=100',
    headers: v1Headers(large.token),
  },
];

/** Form v1's credential headers (HTTP Basic, Dispensary-Token of the 500-item menu unless told), gzip. */
function v1Headers(token = dispensary.token): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    'dispensary-token': token,
    'accept-encoding': 'gzip',
  };
}

function loadOf(url: string, workload: (typeof workloads)[number], headers: Record<string, string>) {
  return {
    url: `${url}${workload.path ?? '/menu'}`,
    connections: 32,
    durationSeconds: seconds,
    method: workload.method,
    headers,
    body: workload.body,
  };
}

// `PROFILE_ONLY=form-b-gzip,form-b-403` profiles only those.
const only = process.env.PROFILE_ONLY?.split(',');
try {
  for (const workload of workloads) {
    if (only && !only.includes(workload.name)) continue;
    const profileDir = join(outDir, workload.name);
    const spawned = performance.now();
    const server = await startMenuServer({
      database,
      logLevel: process.env.LOG_LEVEL ?? 'warn',
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
      serveArgs: workload.serveArgs,
    });
    const headers = { ...workload.headers };
    const path = `${server.url}${workload.path ?? '/menu'}`;
    if (workload.prime) await fetchRaw(path, { method: workload.method, headers, body: workload.body });
    const first = await fetchRaw(path, {
      method: workload.method,
      headers,
      body: workload.body,
    });
    if (workload.revalidate) {
      if (!first.headers.etag) {
        console.log(`${workload.name}: no ETag (skipped)`);
        await server.stop();
        continue;
      }
      headers['if-none-match'] = String(first.headers.etag);
    }
    // Warm up (the first read builds the snapshot), then profile only the measured run.
    await runLoad({ ...loadOf(server.url, workload, headers), durationSeconds: 1 });
    const loadStartedMs = performance.now() - spawned;
    const result = await runLoad(loadOf(server.url, workload, headers));
    await server.stop();
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))!;
    const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
    const summary = summarize(profile, loadStartedMs);
    const text = [
      `${workload.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
        `${(result.bytesPerSecond / 1e6).toFixed(1)} MB/s, ${first.body.length} body bytes (${first.headers['content-encoding'] ?? 'identity'}), ` +
        `statuses ${JSON.stringify(result.statusCodes)}`,
      `per request: ${((summary.busyMs / result.total) * 1000).toFixed(1)} µs busy`,
      formatSummary(summary, 30),
    ].join('\n');
    writeFileSync(join(outDir, `${workload.name}.txt`), `${text}\n`);
    console.log(`${text}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
