import { type ChildProcess, execFile, type StdioOptions, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, CommanderError } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { SETTINGS } from '../../src/config/settings.js';
import { send } from './process.js';

/** The repository root, where `bin/menu-api` runs from. */
export const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(REPOSITORY, 'bin', 'menu-api');

/** The CLI runs the built code (bin/menu-api runs dist/cli/menu-api.mjs): `npm test` builds it first (`pretest`). */
export function assertBuilt(): void {
  if (!existsSync(join(REPOSITORY, 'dist', 'cli', 'menu-api.mjs'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it in pretest)');
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without settings a developer's shell might carry into the commands under test. */
export function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const setting of Object.values(SETTINGS)) delete env[setting.env];
  return { ...env, ...extra };
}

/** Runs `bin/menu-api` as its own process; `db` (when given) goes first as `--db`. Never rejects on exit codes. */
export function runCli(
  db: string | undefined,
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  const argv = [BIN, ...(db === undefined ? [] : ['--db', db]), ...args];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      // Generous: a Node start takes seconds when the whole suite shares two cores.
      { cwd: REPOSITORY, env: cleanEnvironment(options.env), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the program in this process, for what commander alone answers (`--help`, usage errors): no Node
 * start, no database. Commander's exits become a result; a command that reaches its action is not for
 * this helper (its output goes to the process's own stdout).
 */
export async function runInProcess(args: string[]): Promise<CliResult> {
  const output = { stdout: '', stderr: '' };
  const program = capturedProgram(output);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { code: error.exitCode, ...output };
  }
  throw new Error(
    `menu-api ${args.join(' ')} ran its action: use runCli or runCommand for commands that run`,
  );
}

/** The program, with commander's exits thrown (CommanderError) and its own output appended to `output`. */
function capturedProgram(output: { stdout: string; stderr: string }): Command {
  const capture = (command: Command): void => {
    command.exitOverride().configureOutput({
      writeOut: (text) => {
        output.stdout += text;
      },
      writeErr: (text) => {
        output.stderr += text;
      },
    });
    command.commands.forEach(capture);
  };
  const program = buildProgram();
  capture(program);
  return program;
}

/** The in-process commands run one at a time: each borrows the process's stdout, stderr, exit code and environment. */
let commandQueue: Promise<unknown> = Promise.resolve();

/**
 * Runs a command to the end in this process, as `runCli` runs it in a process of its own: `db` first
 * as `--db`, the clean environment plus `env`, standard input, output and error not terminals (as under
 * execFile). Its output and exit code are borrowed while it runs and handed back as a result. A Node
 * start costs about 0.3 s of CPU (seconds of wall time when the suite shares two cores); the
 * commands run the same code here. Each command family keeps tests of its own through `runCli`, which
 * prove the built binary (dist/cli/menu-api.mjs) and a real exit code.
 */
export function runCommand(
  db: string | undefined,
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  const run = commandQueue.then(() =>
    runBorrowingProcess([...(db === undefined ? [] : ['--db', db]), ...args], options.env),
  );
  commandQueue = run.catch(() => undefined);
  return run;
}

/** Like `cliJson`, in this process (`runCommand`). */
export async function commandJson<T = unknown>(db: string, args: string[]): Promise<T> {
  return succeeded<T>(args, await runCommand(db, [...args, '--json']));
}

async function runBorrowingProcess(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const output = { stdout: '', stderr: '' };
  const streams = [process.stdin, process.stdout, process.stderr];
  const saved = {
    env: process.env,
    exitCode: process.exitCode,
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
    tty: streams.map((stream) => stream.isTTY),
  };
  const capture =
    (into: 'stdout' | 'stderr') =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      output[into] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    };
  process.env = cleanEnvironment(env);
  process.exitCode = undefined;
  process.stdout.write = capture('stdout') as typeof process.stdout.write;
  process.stderr.write = capture('stderr') as typeof process.stderr.write;
  for (const stream of streams) stream.isTTY = false;
  let code: number;
  try {
    await capturedProgram(output).parseAsync(argv, { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode;
    else {
      // What Node prints of an uncaught error, and its exit code.
      output.stderr += `${error instanceof Error ? error.stack : String(error)}\n`;
      code = 1;
    }
  } finally {
    process.env = saved.env;
    process.exitCode = saved.exitCode;
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    streams.forEach((stream, index) => {
      stream.isTTY = saved.tty[index] as true;
    });
  }
  return { code, ...output };
}

/** Starts `bin/menu-api ARGS` as a process of its own, from the repository, in the clean environment. */
export function spawnCli(args: string[], stdio: StdioOptions = ['ignore', 'pipe', 'pipe']): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: REPOSITORY, env: cleanEnvironment(), stdio });
}

/** The arguments of `admin-key create` for a key named `name` with `scope` (`all`, `dispensary:<id>`). */
export function adminKeyCreate(scope: string, name: string): string[] {
  return ['admin-key', 'create', '--scope', scope, '--name', name];
}

/** Runs a command that must succeed with `--json`, and returns its parsed output. */
export async function cliJson<T = unknown>(db: string, args: string[]): Promise<T> {
  return succeeded<T>(args, await runCli(db, [...args, '--json']));
}

/** The parsed `--json` output of a command that must have succeeded. */
function succeeded<T>(args: string[], result: CliResult): T {
  if (result.code !== 0) {
    throw new Error(`menu-api ${args.join(' ')} exited ${result.code}: ${result.stderr}${result.stdout}`);
  }
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the server wrote to standard output and error so far. */
  output(): string;
  /** Stops the server (SIGTERM, then SIGKILL after a while) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * The drain delay of the servers tests start: none. It keeps a server answering for 2 s after SIGTERM
 * (by default) so that a load balancer can stop sending to it; no balancer watches these servers, and
 * every stop() would wait it out. Tests of the drain pass their own `--drain-delay-ms` in `args`, which
 * come later on the command line and win.
 */
const NO_DRAIN_DELAY = ['--drain-delay-ms', '0'];

/**
 * Starts `bin/menu-api serve --port 0 --json`, waits for the URL it prints, then, as a load balancer
 * would, for `/readyz` to answer 200 (at most READY_WAIT_MS: a test of a server that starts unready
 * goes on as before; a server whose /readyz is on an ops port answers 404 here, and is not waited
 * for). On PostgreSQL under a full run a server's first read of its change feed has failed now and
 * then, and it answered 503 until its retry a second later. `nodeArgs` go to node before the script
 * (V8 flags such as `--trace-gc-nvp`).
 */
export async function startServe(
  db: string,
  args: string[] = [],
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const server = await startListening(
    'serve',
    [
      ...nodeArgs,
      BIN,
      '--db',
      db,
      'serve',
      '--port',
      '0',
      '--json',
      '--log-level',
      'warn',
      ...NO_DRAIN_DELAY,
      ...args,
    ],
    /"url": "(http:\/\/[^"]+)"/,
  );
  await untilReady(server.url);
  return server;
}

/** How long startServe waits for a started server's /readyz to answer 200. */
const READY_WAIT_MS = 10_000;

async function untilReady(url: string): Promise<void> {
  const deadline = Date.now() + READY_WAIT_MS;
  while (Date.now() < deadline) {
    // On a connection of its own (send), which it closes: no idle keep-alive connection stays behind.
    const status = await send(`${url}/readyz`, { timeoutMs: 2_000 }).then(
      (answer) => answer.status,
      () => 0,
    );
    if (status === 200 || status === 404) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts a node program that listens on a free port and waits until its standard output says where:
 * `listening` finds the URL in what it printed so far (its first group).
 */
export function startListening(name: string, args: string[], listening: RegExp): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: REPOSITORY,
    env: cleanEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} printed no URL within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = listening.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before printing its URL:\n${output}`));
    });
  });
}
