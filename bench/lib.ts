/** Process plumbing for the benchmark: pinned children, the server under test, load runs, raw HTTP. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-worker.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Whether `taskset` can pin processes here (util-linux, Linux only). */
export const TASKSET = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The server and the ceiling run on core 0; the load generator on core 1. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return TASKSET ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Peak resident set size of a process, in bytes (VmHWM). */
export function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Current resident set size of a process, in bytes (VmRSS). */
export function currentRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** CPU time a process has used (user + system, all threads), ms; clock ticks of 10 ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes on the wire, not decoded. */
  body: Buffer;
  ms: number;
}

/** One HTTP request with a fresh connection; the body comes back as sent (no decompression). */
export function fetchRaw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

export interface ServerUnderTest {
  url: string;
  pid: number;
  /** Its keep-alive timeout, from the `Keep-Alive: timeout=` header it writes: the ceiling's too. */
  keepAliveMs: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `serve --help` of the build: which options this version has (so the bench runs across versions). */
function serveHelp(): string {
  return execFileSync(process.execPath, [join(ROOT, 'bin/menu-api'), 'serve', '--help'], {
    encoding: 'utf8',
  });
}

/** Starts `bin/menu-api serve` (the production build), pinned to the server core, and waits for /healthz. */
export async function startMenuServer(options: {
  database: string;
  snapshotBudgetMb?: number;
  nodeArgs?: string[];
  logLevel?: string;
  /** More `serve` options, after the bench's own (a later one wins). */
  serveArgs?: string[];
}): Promise<ServerUnderTest> {
  const port = await freePort();
  const help = serveHelp();
  const args = [
    ...(options.nodeArgs ?? []),
    join(ROOT, 'bin/menu-api'),
    'serve',
    '--db',
    options.database,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    options.logLevel ?? 'info',
  ];
  // One process: the bench measures what one core does.
  if (help.includes('--workers')) args.push('--workers', '1');
  // One credential at thousands of requests per second: limits so high that they never refuse,
  // so that their bookkeeping still runs on every request; no forced reconnection either.
  const never = '1000000000,1000000000';
  if (help.includes('--rate-limit-credential')) args.push('--rate-limit-credential', never);
  if (help.includes('--rate-limit-address')) args.push('--rate-limit-address', never);
  if (help.includes('--rate-limit-admin-key')) args.push('--rate-limit-admin-key', never);
  if (help.includes('--max-requests-per-socket')) args.push('--max-requests-per-socket', '0');
  if (options.snapshotBudgetMb !== undefined && help.includes('--snapshot-budget-mb')) {
    args.push('--snapshot-budget-mb', String(options.snapshotBudgetMb));
  }
  args.push(...(options.serveArgs ?? []));
  const [command, argv] = pinned(SERVER_CORE, process.execPath, args);
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  let keepAliveMs = Number.NaN;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${stderr}`);
    try {
      const response = await fetchRaw(`${url}/healthz`, { headers: { connection: 'keep-alive' } });
      keepAliveMs = Number(/timeout=(\d+)/.exec(String(response.headers['keep-alive']))?.[1]) * 1000;
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not start: ${stderr}`);
    await sleep(50);
  }
  return {
    url,
    pid: child.pid!,
    keepAliveMs,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `wrk` (a C load generator) when it is installed: it hides less of a server's cost than a Node client. */
export const WRK = (() => {
  if (process.env.BENCH_CLIENT === 'autocannon') return undefined;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return 'wrk';
  } catch (error) {
    // wrk --version exits with 1 after printing its version: it is there.
    if ((error as { status?: number }).status === 1) return 'wrk';
    return undefined;
  }
})();

/** The load generator `runLoad` uses: wrk when installed, else autocannon (BENCH_CLIENT=autocannon forces it). */
export const LOAD_CLIENT: 'wrk' | 'autocannon' = WRK ? 'wrk' : 'autocannon';

/** Runs one load job with wrk (else autocannon) in a child process pinned to the load core. */
export function runLoad(job: LoadJob): Promise<LoadResult> {
  return LOAD_CLIENT === 'wrk' ? runWrk(job) : runAutocannon(job);
}

function runAutocannon(job: LoadJob): Promise<LoadResult> {
  const [command, argv] = pinned(LOAD_CORE, process.execPath, [
    '--import',
    'tsx',
    join(ROOT, 'bench/load-worker.ts'),
    JSON.stringify(job),
  ]);
  return collect(command, argv, 'autocannon', (line) => ({
    ...(JSON.parse(line) as LoadResult),
    client: 'autocannon',
  }));
}

/**
 * One wrk run (one thread, `connections` connections). The job's method, headers and body go in a
 * Lua script; `done` prints the figures as one JSON line. wrk does not break statuses down: it counts
 * answers that are not 2xx or 3xx (the bench checks the status of each workload's answer itself).
 */
function runWrk(job: LoadJob): Promise<LoadResult> {
  const lua = (value: string) => JSON.stringify(value);
  const script = [
    `wrk.method = ${lua(job.method)}`,
    ...Object.entries(job.headers).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`),
    job.body === undefined ? '' : `wrk.body = ${lua(job.body)}`,
    job.rotateStore
      ? [
          `local stores = { ${job.rotateStore.map(lua).join(', ')} }`,
          'local requests = {}',
          'local next = 0',
          'init = function(args)',
          '  for i, store in ipairs(stores) do wrk.headers["store"] = store; requests[i] = wrk.format() end',
          'end',
          'request = function()',
          '  next = next % #requests + 1',
          '  return requests[next]',
          'end',
        ].join('\n')
      : '',
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'{"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency:percentile(50), latency:percentile(99)))',
    'end',
  ].join('\n');
  const file = join(mkdtempSync(join(tmpdir(), 'menu-api-wrk-')), 'job.lua');
  writeFileSync(file, script);
  const [command, argv] = pinned(LOAD_CORE, 'wrk', [
    '-t1',
    `-c${job.connections}`,
    // wrk takes whole seconds.
    `-d${Math.max(1, Math.round(job.durationSeconds))}s`,
    '--timeout',
    '10s',
    '-s',
    file,
    job.url,
  ]);
  return collect(command, argv, 'wrk', (line) => {
    const out = JSON.parse(line) as {
      requests: number;
      duration_us: number;
      bytes: number;
      connect: number;
      read: number;
      write: number;
      status: number;
      timeout: number;
      p50_us: number;
      p99_us: number;
    };
    const seconds = out.duration_us / 1e6;
    const statusCodes: Record<string, number> = {};
    if (out.requests - out.status > 0) statusCodes['2xx/3xx'] = out.requests - out.status;
    if (out.status > 0) statusCodes.other = out.status;
    return {
      requestsPerSecond: out.requests / seconds,
      p50: out.p50_us / 1000,
      p99: out.p99_us / 1000,
      bytesPerSecond: out.bytes / seconds,
      total: out.requests,
      errors: out.connect + out.read + out.write,
      timeouts: out.timeout,
      statusCodes,
      client: 'wrk',
    };
  }).finally(() => rmSync(dirname(file), { recursive: true, force: true }));
}

function collect(
  command: string,
  argv: string[],
  name: string,
  parse: (line: string) => LoadResult,
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`${name} failed (${code}): ${stderr}${stdout}`));
        return;
      }
      resolve(parse(line));
    });
  });
}

export interface Ceiling {
  url: string;
  pid: number;
  serve(response: RawResponse): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the bare node:http ceiling server of `server` (same keep-alive timeout), pinned to the server core. */
export async function startCeiling(server: ServerUnderTest): Promise<Ceiling> {
  const port = await freePort();
  const [command, argv] = pinned(SERVER_CORE, process.execPath, [
    '--import',
    'tsx',
    join(ROOT, 'bench/ceiling.ts'),
  ]);
  const child = spawn(command, argv, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), KEEP_ALIVE_MS: String(server.keepAliveMs) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ceiling server exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    serve: (response) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          // Node writes the connection headers (from the keep-alive timeout) and the date itself.
          if (value === undefined || ['connection', 'keep-alive', 'date'].includes(name)) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        child.send({ status: response.status, headers, body: response.body.toString('base64') });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

function newestMtime(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Runs `npm run build` when any source the build reads (server, console, browser code) is newer than
 * dist/: every benchmark measures the built server.
 */
export function ensureBuilt(log: (message: string) => void): void {
  let builtAt = 0;
  try {
    builtAt = statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs;
  } catch {
    // Never built.
  }
  const sources = ['src', 'console', 'web'].filter((folder) => existsSync(join(ROOT, folder)));
  if (builtAt < Math.max(...sources.map((folder) => newestMtime(join(ROOT, folder))))) {
    log('building (npm run build)');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
}
