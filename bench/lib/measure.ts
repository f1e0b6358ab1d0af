/**
 * One read workload against the server and the bare node:http ceiling, with the CPU each spent per
 * request: shared by `npm run bench` (bench/run.ts) and the quick read-path runs (bench/read-path.ts).
 */

import type { Ceiling } from './ceiling.js';
import type { BenchDispensary } from './data.js';
import { fetchRaw, type RawResponse } from './http.js';
import { runLoad } from './load.js';
import type { LoadResult } from './load-worker.js';
import { cpuMs } from './processes.js';
import type { ServerUnderTest } from './server.js';

export interface BenchRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface Credential {
  username: string;
  password: string;
}

/** A GET with these headers, and Accept-Encoding when one is given. */
export const getRequest = (headers: Record<string, string>, acceptEncoding?: string): BenchRequest => ({
  method: 'GET',
  headers: { ...headers, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) },
});

/** Form B: GET /menu, credentials and token in headers. */
export const formBRequest = (
  { username, password }: Credential,
  dispensary: BenchDispensary,
  acceptEncoding?: string,
): BenchRequest => getRequest({ store: dispensary.token, username, password }, acceptEncoding);

/** Form A: POST /menu with a JSON body. */
export const formARequest = (
  { username, password }: Credential,
  dispensary: BenchDispensary,
  acceptEncoding: string,
): BenchRequest => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'accept-encoding': acceptEncoding },
  body: JSON.stringify({ username, password, collective_token: dispensary.token }),
});

export interface Row {
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

export interface MeasureOptions {
  /** Each side's measured time (half before, half after the other side's). */
  seconds: number;
  connections: number;
  /** Send the answer's ETag back (If-None-Match): a 304 workload. */
  revalidate?: boolean;
  /** The status the workload must answer (checked before the load: wrk does not tell statuses apart). */
  status?: number;
  /** The path and query read (default /menu). */
  path?: string;
  /** Warm both sides up first (default true); false for a workload measured again in rounds. */
  warmUp?: boolean;
  log: (message: string) => void;
}

/**
 * Seconds of load each side gets before it is measured. A fresh server process optimizes about 150
 * functions in its first second of load, 50 in its second and a few more up to its sixth
 * (`--trace-opt`), and the compiler's threads share the server's core: measured after 1 s or 3 s of
 * load, the first measured run's p99 was two to five times the second's (bench/PROFILE.md, round
 * thirty-five).
 */
export const WARM_UP_SECONDS = 6;

/** One workload: the server and the ceiling serving the same answer, each after WARM_UP_SECONDS of load. */
export async function measureWorkload(
  server: ServerUnderTest,
  ceiling: Ceiling | undefined,
  name: string,
  request: BenchRequest,
  options: MeasureOptions,
): Promise<Row> {
  const {
    seconds,
    connections,
    revalidate = false,
    status = 200,
    path = '/menu',
    warmUp = true,
    log,
  } = options;
  const load = (url: string, loaded: BenchRequest, duration: number) =>
    runLoad({
      url: `${url}${path}`,
      connections,
      durationSeconds: duration,
      method: loaded.method,
      headers: loaded.headers,
      body: loaded.body,
    });
  const first: RawResponse = await fetchRaw(`${server.url}${path}`, request);
  if (first.status !== status) throw new Error(`${name}: the server answered ${first.status}: ${first.body}`);
  let answer = first;
  if (revalidate) {
    request = { ...request, headers: { ...request.headers, 'if-none-match': String(first.headers.etag) } };
    answer = await fetchRaw(`${server.url}${path}`, request);
    if (answer.status !== 304) throw new Error(`${name}: revalidation answered ${answer.status}`);
  }
  // Both sides warm up alike, for as long as the server's code takes to be optimized: measured
  // cold, a side's p99 is its compiler's at work, not its serving's (a ceiling measured cold
  // flattered the first workload's p99 ratio; WARM_UP_SECONDS says what a server's does).
  if (warmUp) await load(server.url, request, WARM_UP_SECONDS);
  if (ceiling) {
    await ceiling.serve(answer);
    if (warmUp) await load(ceiling.url, request, WARM_UP_SECONDS);
  }
  // Server, ceiling, ceiling, server (half the time each): a load that drifts during the workload
  // (another process on the machine) weighs on both sides alike.
  const half = seconds / 2;
  const serverRuns: LoadResult[] = [];
  const ceilingRuns: LoadResult[] = [];
  let serverCpuMs = 0;
  let ceilingCpuMs = 0;
  const timed = async (pid: number, run: () => Promise<LoadResult>) => {
    const before = cpuMs(pid);
    const result = await run();
    return { result, cpu: cpuMs(pid) - before };
  };
  const onServer = async (duration: number) => {
    const { result, cpu } = await timed(server.pid, () => load(server.url, request, duration));
    serverRuns.push(result);
    serverCpuMs += cpu;
  };
  const onCeiling = async () => {
    const { result, cpu } = await timed(ceiling!.pid, () => load(ceiling!.url, request, half));
    ceilingRuns.push(result);
    ceilingCpuMs += cpu;
  };
  log(`${name}: server, ceiling${ceiling ? ', ceiling, server' : ''}`);
  await onServer(ceiling ? half : seconds);
  if (ceiling) {
    await onCeiling();
    await onCeiling();
    await onServer(half);
  }
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
    server: combine(serverRuns),
    ceiling: ceiling ? combine(ceilingRuns) : undefined,
    bodyBytes: first.body.length,
    encoding: String(first.headers['content-encoding'] ?? 'identity'),
    expected: revalidate ? 304 : status,
  };
}

/** Runs of one side as one: rates averaged, p50 averaged, p99 the worse, counts summed. */
export function combine(runs: LoadResult[]): LoadResult {
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
    client: runs[0]!.client,
  };
}

/** Measurements of one workload as one (see combine); CPU per request weighted by each one's requests. */
export function combineRows(rows: Row[]): Row {
  const first = rows[0]!;
  if (rows.length === 1) return first;
  const perRequest = (pick: (row: Row) => [cpuUs: number | undefined, requests: number]) => {
    let cpu = 0;
    let requests = 0;
    for (const row of rows) {
      const [cpuUs, count] = pick(row);
      cpu += (cpuUs ?? 0) * count;
      requests += count;
    }
    return cpu / Math.max(1, requests);
  };
  const ceilings = rows.flatMap((row) => (row.ceiling ? [row.ceiling] : []));
  return {
    ...first,
    server: combine(rows.map((row) => row.server)),
    ceiling: ceilings.length > 0 ? combine(ceilings) : undefined,
    serverCpuUs: perRequest((row) => [row.serverCpuUs, row.server.total]),
    ceilingCpuUs:
      ceilings.length > 0 ? perRequest((row) => [row.ceilingCpuUs, row.ceiling?.total ?? 0]) : undefined,
  };
}
