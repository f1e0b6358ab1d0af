/** The server under test: `bin/menu-api serve` of the production build, pinned to the server core. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fetchRaw } from './http.js';
import { freePort, pinned, ROOT, SERVER_CORE, sleep } from './processes.js';

export interface ServerUnderTest {
  url: string;
  pid: number;
  /** Its keep-alive timeout, from the `Keep-Alive: timeout=` header it writes (NaN without one): the ceiling's too. */
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
  /**
   * A command that runs node (`valgrind --tool=callgrind …`, bench/instructions.ts) instead of the
   * pinned node; the server then gets `startMs` to answer /healthz.
   */
  wrapper?: string[];
  startMs?: number;
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
  const [command, argv] = options.wrapper
    ? [options.wrapper[0]!, [...options.wrapper.slice(1), process.execPath, ...args]]
    : pinned(SERVER_CORE, process.execPath, args);
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startMs ?? 30_000);
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
