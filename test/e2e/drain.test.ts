import { connect, type Socket } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, type ServerProcess, spawnCli, startServe } from '../helpers/cli.js';
import { send, waitForExit } from '../helpers/process.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';
import { until } from '../helpers/wait.js';

/** Opens a TCP connection and resolves once it is established; the request is written later. */
function openConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes one GET on an open connection and resolves with everything the server sent before it closed. */
function requestOn(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      received += `\n<${error.code}>`;
    });
    socket.on('close', () => resolve(received));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
}

/**
 * SIGTERM in a rolling deploy: a connection the server accepted before the signal gets its request
 * answered (with Connection: close), and the drain delay keeps serving while /readyz says 503.
 */
describe('drain on SIGTERM', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    database = await testDatabase('sqlite');
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database.cleanup();
  });

  it('answers requests that wait in the listen backlog when the signal arrives, resetting none', async () => {
    server = await startServe(database.address, ['--drain-delay-ms', '0', '--log-level', 'info']);
    const child = server.child;
    // Stopped, the server accepts nothing: the connections (requests written) wait in the backlog,
    // and SIGTERM is pending alongside them when it resumes.
    child.kill('SIGSTOP');
    let answers: Promise<string>[];
    try {
      const sockets = await Promise.all(Array.from({ length: 20 }, () => openConnection(server!.url)));
      answers = sockets.map((socket) => requestOn(socket, '/healthz'));
      child.kill('SIGTERM');
    } finally {
      child.kill('SIGCONT');
    }
    const exited = waitForExit(child, 20_000);
    // Every one answered in full (those the server read before it saw the signal carry no
    // Connection: close; it closes them once answered all the same), none reset.
    for (const answer of await Promise.all(answers)) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).not.toContain('<ECONNRESET>');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it('answers requests on connections accepted before the signal, with Connection: close, then exits 0', async () => {
    server = await startServe(database.address, ['--drain-delay-ms', '0', '--log-level', 'info']);
    const sockets = await Promise.all(Array.from({ length: 6 }, () => openConnection(server!.url)));
    // The server has accepted them (a request on another connection is answered after they were).
    expect((await send(`${server.url}/healthz`)).status).toBe(200);
    const exited = waitForExit(server.child, 20_000);
    server.child.kill('SIGTERM');
    await until(() => server!.output().includes('shutting down'), 10_000, 'the shutdown to start');
    // Longer than the old idle reaper's 100 ms period: the connections have sent nothing yet.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answers = await Promise.all(sockets.map((socket) => requestOn(socket, '/healthz')));
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer.toLowerCase()).toContain('connection: close');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it('--drain-delay-ms: /readyz answers 503 while requests on new connections are still served', async () => {
    server = await startServe(database.address, ['--drain-delay-ms', '3000']);
    expect((await send(`${server.url}/readyz`)).status).toBe(200);
    const exited = waitForExit(server.child, 20_000);
    server.child.kill('SIGTERM');
    await until(
      async () => (await send(`${server!.url}/readyz`)).status === 503,
      5_000,
      '/readyz to say 503',
    );
    const served = await send(`${server.url}/healthz`);
    expect(served.status).toBe(200);
    expect(served.headers.connection).toBe('close');
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});

/**
 * A log reader that stopped reading (`menu-api serve | sleep 1000`): the server must still stop by its
 * deadline, keep its log buffer bounded, count what it dropped and say so once on stderr.
 */
describe('a stdout nobody reads', () => {
  let database: TestDatabase;
  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    database = await testDatabase('sqlite');
  });
  afterEach(async () => {
    await database.cleanup();
  });

  // Some 1,200 requests on a machine shared with other tests: more than the default 20 s.
  it('SIGTERM still ends the process by its deadline; dropped lines are counted and said once', {
    timeout: 60_000,
  }, async () => {
    const child = spawnCli([
      '--db',
      database.address,
      'serve',
      '--port',
      '0',
      '--json',
      '--log-level',
      'info',
      '--shutdown-timeout-ms',
      '1000',
      '--drain-delay-ms',
      '0',
      '--log-buffer-kb',
      '16',
    ]);
    try {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      // Read stdout only until the URL is there, then never again: the pipe fills up.
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /"url": "(http:\/\/[^"]+)"/.exec(output);
          if (match) {
            child.stdout!.off('data', onData);
            child.stdout!.pause();
            resolve(match[1]!);
          }
        };
        child.stdout!.on('data', onData);
        child.once('exit', () => reject(new Error(`serve exited early: ${stderr}`)));
      });
      // Each request logs a line of some 220 bytes (its 64-character request id among them). What the
      // server can hand on before it must drop: the kernel's pipe (64 KiB), what this process's paused
      // stream still reads ahead (up to 64 KiB more) and the 16 KiB log buffer. 1,200 requests write
      // some 260 KiB: well over, whatever the timings in the lines.
      for (let round = 0; round < 24; round++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, index) =>
            send(`${url}/healthz?n=${round}-${index}`, {
              headers: { 'x-request-id': `${round}-${index}-`.padEnd(64, 'x') },
            }),
          ),
        );
      }
      const metrics = await send(`${url}/metrics`);
      const dropped = /^menu_api_log_lines_dropped_total (\d+)$/m.exec(metrics.body);
      expect(dropped, metrics.body.slice(0, 2000)).not.toBeNull();
      expect(Number(dropped![1])).toBeGreaterThan(0);
      const exited = waitForExit(child, 15_000);
      child.kill('SIGTERM');
      const how = await exited;
      expect(how.signal).toBeNull();
      expect(stderr.match(/log lines? dropped/g)?.length, stderr).toBe(1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
