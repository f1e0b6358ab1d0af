/** Load runs: wrk (else autocannon) in a child process pinned to the load core. */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LoadJob, LoadResult } from './load-worker.js';
import { LOAD_CORE, pinned, ROOT } from './processes.js';

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
    join(ROOT, 'bench/lib/load-worker.ts'),
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

/** Runs a load generator to its end and parses the last line it printed (one JSON object). */
function collect(
  command: string,
  argv: string[],
  name: string,
  parse: (line: string) => LoadResult,
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(command, argv, { cwd: ROOT, encoding: 'utf8' }, (error, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      if (error || !line.startsWith('{'))
        reject(new Error(`${name} failed (${error?.code ?? 0}): ${stderr}${stdout}`));
      else resolve(parse(line));
    });
  });
}
