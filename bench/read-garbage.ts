/**
 * `npx tsx bench/read-garbage.ts`: what menu reads leave for the old generation. The production server
 * (`bin/menu-api serve`) and a bare node:http server that reads the same requests (Form A's body
 * included) and sends a body of the same size, each under `--trace-gc-nvp --max-semi-space-size=1` (a
 * young collection every few dozen reads), are read 2,500 times in each form on one kept-alive
 * connection after as many to warm up; the bytes young collections promoted are summed from V8's
 * lines. Twice: on a fresh server, and after crowds of 32 clients waited together for menus of 500
 * items to be built (what once made V8 pretenure request objects: bench/PROFILE.md, round seven).
 *
 * This was a test (test/e2e/read-garbage.e2e.test.ts, under 200 KB) until its outcome turned out to
 * follow V8's heuristics more than the read path: the same reads promoted 25 KB or 870-900 KB from one
 * build to the next as unrelated routes, services or the log level changed, and the objects that
 * survived were Node's own request headers, promoted as much when the server answered Form A with a
 * bare handler of its own (details in bench/PROFILE.md, round eight). A figure for the bench, read
 * beside the bare server's, not an assertion.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliDispensary, menuCli } from './lib/cli.js';
import { statusOver } from './lib/http.js';
import { freePort, ROOT, startRun } from './lib/processes.js';
import { writeResultsSection } from './lib/results.js';

const READS = 2_500;
const CROWD = 32;
const CROWD_ROUNDS = 10;
const CROWD_ITEMS = 500;
const GC_FLAGS = ['--trace-gc-nvp', '--max-semi-space-size=1'];
const NEVER = '1000000000,1000000000';

/** The bare reader: answers every request, once its body is read, with a body of `BODY_BYTES`. */
const BARE_SERVER = `
import { createServer } from 'node:http';
const body = Buffer.alloc(Number(process.env.BODY_BYTES), 'x');
createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (chunks.length) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(200, ['content-type', 'application/json', 'content-length', String(body.length)]);
    response.end(body);
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
`;

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function start(args: string[], env: Record<string, string>, port: number): Promise<Running> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', () => {});
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    if (/listening/i.test(output)) return { child, url, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error(`did not start: ${args.join(' ')}\n${output}`);
}

const send = (url: string, agent: Agent, method: string, headers: Record<string, string>, body?: string) =>
  statusOver(agent, new URL('/menu', url), { method, headers, body });

/** Bytes promoted by young collections in V8's `--trace-gc-nvp` lines, and how many there were. */
function promoted(lines: string): { scavenges: number; bytes: number } {
  let scavenges = 0;
  let bytes = 0;
  for (const line of lines.split('\n')) {
    if (!line.includes('gc=s ')) continue;
    scavenges++;
    bytes += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { scavenges, bytes };
}

const { started, loadAtStart, log } = startRun('read-garbage');
const work = mkdtempSync(join(tmpdir(), 'menu-api-read-garbage-'));
const database = join(work, 'menu.db');
const dispensary = cliDispensary(database, work, { name: 'Garbage', keyName: 'garbage', items: 1, seed: 1 });
const credential = menuCli<{ username: string; password: string }>(database, [
  'credential',
  'issue',
  '--username',
  'garbage',
]);
const formB = {
  store: dispensary.token,
  username: credential.username,
  password: credential.password,
  'accept-encoding': 'gzip',
};
const formA = JSON.stringify({ ...credential, collective_token: dispensary.token });
const jsonType = { 'content-type': 'application/json' };

/** Promoted bytes over READS reads in each form, after as many to warm up. */
async function measure(server: Running): Promise<{ scavenges: number; bytes: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const readMany = async () => {
    for (let index = 0; index < READS; index++) {
      await send(server.url, agent, 'GET', formB);
      await send(server.url, agent, 'POST', jsonType, formA);
    }
  };
  await readMany();
  const before = server.output().length;
  await readMany();
  agent.destroy();
  return promoted(server.output().slice(before));
}

/** Crowds of CROWD clients asking at once for menus of CROWD_ITEMS items not built yet. */
async function crowd(server: Running): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CROWD });
  for (let round = 0; round < CROWD_ROUNDS; round++) {
    const crowded = cliDispensary(database, work, {
      name: `Crowded ${round}`,
      keyName: `crowded-${round}`,
      items: CROWD_ITEMS,
      seed: round + 2,
    });
    const headers = { ...formB, store: crowded.token };
    await Promise.all(Array.from({ length: CROWD }, () => send(server.url, agent, 'GET', headers)));
  }
  agent.destroy();
}

const rows: string[] = [];
for (const afterCrowd of [false, true]) {
  const label = afterCrowd ? 'after crowds waited for builds' : 'fresh server';
  log(`${label}: the server`);
  const port = await freePort();
  const server = await start(
    [
      ...GC_FLAGS,
      join(ROOT, 'bin/menu-api'),
      '--db',
      database,
      'serve',
      '--port',
      String(port),
      '--rate-limit-credential',
      NEVER,
      '--rate-limit-address',
      NEVER,
      '--drain-delay-ms',
      '0',
    ],
    {},
    port,
  );
  if (afterCrowd) await crowd(server);
  const bodyBytes = (
    await fetch(`${server.url}/menu`, { headers: { ...formB, 'accept-encoding': 'identity' } }).then((r) =>
      r.arrayBuffer(),
    )
  ).byteLength;
  const ours = await measure(server);
  server.child.kill('SIGTERM');
  log(`${label}: the bare node:http reader`);
  const barePort = await freePort();
  const bare = await start(
    [...GC_FLAGS, '--input-type=module', '-e', BARE_SERVER],
    { PORT: String(barePort), BODY_BYTES: String(bodyBytes) },
    barePort,
  );
  if (afterCrowd) {
    const agent = new Agent({ keepAlive: true, maxSockets: CROWD });
    for (let round = 0; round < CROWD_ROUNDS; round++)
      await Promise.all(Array.from({ length: CROWD }, () => send(bare.url, agent, 'GET', formB)));
    agent.destroy();
  }
  const ceiling = await measure(bare);
  bare.child.kill('SIGTERM');
  const perRead = (bytes: number) => (bytes / (2 * READS)).toFixed(1);
  rows.push(
    `| ${label} | ${ours.bytes.toLocaleString('en')} (${ours.scavenges}) | ${perRead(ours.bytes)} | ${ceiling.bytes.toLocaleString('en')} (${ceiling.scavenges}) | ${perRead(ceiling.bytes)} |`,
  );
}
rmSync(work, { recursive: true, force: true });

const section = `<!-- read-garbage:start (written by bench/read-garbage.ts) -->
## What menu reads leave for the old generation (bench/read-garbage.ts)

Run with \`npx tsx bench/read-garbage.ts\`. ${READS.toLocaleString('en')} Form B and ${READS.toLocaleString('en')} Form A reads of a one-item menu, one after another on one kept-alive connection, after as many to warm up, with \`${GC_FLAGS.join(' ')}\`; bytes promoted by young collections (their count in brackets). The bare reader is node:http reading the same requests (Form A's body parsed) and sending a body of the same size.

- Date: ${new Date().toISOString()}; ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}; Node ${process.version}
- Load average at start: ${loadAtStart.map((value) => value.toFixed(2)).join(', ')}; the run took ${((Date.now() - started) / 1000).toFixed(0)} s.

| Case | Server: promoted bytes | per read | Bare reader: promoted bytes | per read |
|---|--:|--:|--:|--:|
${rows.join('\n')}
<!-- read-garbage:end -->
`;
writeResultsSection('read-garbage', section);
console.log(`\n${section}`);
