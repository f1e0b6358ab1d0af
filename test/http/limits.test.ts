import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS, type HttpLimits, type ServerConfig } from '../../src/config.js';
import { adminKey } from '../helpers/admin.js';
import { formBHeaders, rawRequest } from '../helpers/http.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let runtime: TestRuntime | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await runtime?.close();
  runtime = undefined;
});

/** A listening server with these HTTP limits (the rest as configured), and its port. */
async function listening(http: Partial<HttpLimits> = {}, config: Partial<ServerConfig> = {}) {
  runtime = await testRuntime({ config: { ...config, http: { ...DEFAULTS.http, ...http } } });
  const url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  return { url, port: Number(new URL(url).port), seed: runtime.seed };
}

/** A raw client connection that records what it receives and when the server closed it. */
interface Client {
  socket: Socket;
  received(): string;
  closed: Promise<number>;
  /** Bytes the client managed to hand to the connection before it closed. */
  written(): number;
}

function client(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    let written = 0;
    const originalWrite = socket.write.bind(socket);
    socket.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      return originalWrite(chunk, ...rest);
    }) as typeof socket.write;
    const started = Date.now();
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => text, closed, written: () => written }));
    socket.once('error', reject);
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const bodyOf = (text: string) =>
  JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

describe('limits: defaults', () => {
  it('are the documented ones', () => {
    expect(DEFAULTS.http).toEqual({
      maxHeaderSize: 16 * 1024,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      connectionTimeoutMs: 120_000,
      maxConnections: 4096,
      maxRequestsPerSocket: 1000,
      timeoutCheckIntervalMs: 1_000,
    });
    expect(DEFAULTS.bodyLimit).toBe(64 * 1024);
    expect(DEFAULTS.adminBodyLimit).toBe(16 * 1024 * 1024);
  });

  it('the server runs with them', async () => {
    await listening();
    const server = runtime!.app.server;
    // Node keeps the option on the server, untyped.
    expect((server as unknown as { maxHeaderSize: number }).maxHeaderSize).toBe(16 * 1024);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(60_000);
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.timeout).toBe(120_000);
    expect(server.maxConnections).toBe(4096);
    expect(server.maxRequestsPerSocket).toBe(1000);
  });
});

describe('limits: slow clients', () => {
  it('a slowloris client, sending its headers a byte at a time, is cut off with 408', async () => {
    const { port } = await listening({
      headersTimeoutMs: 600,
      requestTimeoutMs: 2_000,
      timeoutCheckIntervalMs: 100,
    });
    const slow = await client(port);
    const request = 'GET /menu HTTP/1.1\r\nHost: localhost\r\nX-Padding: ';
    let sent = 0;
    const trickle = setInterval(() => {
      if (slow.socket.destroyed) return;
      slow.socket.write(sent < request.length ? request[sent]! : 'a');
      sent += 1;
    }, 50);
    try {
      const after = await slow.closed;
      expect(after).toBeGreaterThanOrEqual(500);
      // Cut off by the configured 600 ms (plus the 100 ms check interval), far from the default 10 s.
      expect(after).toBeLessThan(5_000);
      expect(statusOf(slow.received())).toBe(408);
      expect(bodyOf(slow.received()).error.code).toBe('request_timeout');
    } finally {
      clearInterval(trickle);
    }
  });

  it('a client whose body never finishes is cut off after the request timeout', async () => {
    const { port, seed } = await listening({
      headersTimeoutMs: 500,
      requestTimeoutMs: 800,
      timeoutCheckIntervalMs: 100,
    });
    const slow = await client(port);
    slow.socket.write(
      `POST /menu HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"username":"${seed.username}"`,
    );
    const after = await slow.closed;
    expect(after).toBeGreaterThanOrEqual(700);
    expect(after).toBeLessThan(5_000);
    expect(statusOf(slow.received())).toBe(408);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const { port, seed } = await listening({ keepAliveTimeoutMs: 300 });
    const idle = await client(port);
    const headers = Object.entries(formBHeaders(seed))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    idle.socket.write(`GET /store HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
    expect(await until(() => statusOf(idle.received()) === 200, 2_000)).toBe(true);
    const answeredAt = Date.now();
    await idle.closed;
    const idleFor = Date.now() - answeredAt;
    expect(idleFor).toBeGreaterThanOrEqual(200);
    expect(idleFor).toBeLessThan(5_000);
  });

  it('a connection serves at most maxRequestsPerSocket requests', async () => {
    const { url, seed } = await listening({ maxRequestsPerSocket: 2 });
    const { port } = new URL(url);
    const keep = await client(Number(port));
    const headers = Object.entries(formBHeaders(seed))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    keep.socket.write(`GET /store HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
    keep.socket.write(`GET /store HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
    const answers = () => keep.received().split('HTTP/1.1 ').slice(1);
    expect(await until(() => answers().length === 2, 2_000)).toBe(true);
    expect(answers()[0]).toMatch(/\r\nconnection: keep-alive\r\n/i);
    // The second answer tells the client to reconnect (Node answers any further request with 503).
    expect(answers()[1]).toMatch(/\r\nconnection: close\r\n/i);
  });
});

describe('limits: large requests', () => {
  it('a 10 MB body with its Content-Length gets 413 before any of it is sent', async () => {
    const { port, seed } = await listening();
    const big = await client(port);
    big.socket.write(
      `POST /menu HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n` +
        `username: ${seed.username}\r\n\r\n`,
    );
    expect(await until(() => big.received().includes('\r\n\r\n{'), 2_000)).toBe(true);
    expect(statusOf(big.received())).toBe(413);
    expect(bodyOf(big.received()).error.code).toBe('payload_too_large');
    expect(big.received()).toMatch(/\r\nconnection: close\r\n/i);
    // And the server closes the connection rather than reading the 10 MB it was promised.
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let index = 0; index < 160 && !big.socket.destroyed; index += 1) {
      if (!big.socket.write(chunk))
        await Promise.race([new Promise((done) => big.socket.once('drain', done)), sleep(200)]);
    }
    await Promise.race([big.closed, sleep(3_000)]);
    expect(big.socket.destroyed || big.socket.readableEnded).toBe(true);
    // The connection was closed long before the client could hand over 10 MB (in practice: none of it).
    expect(big.written()).toBeLessThan(1024 * 1024);
  });

  it('a chunked body is read only until it passes the limit, then 413 and the connection closes', async () => {
    const { port } = await listening();
    const big = await client(port);
    big.socket.write(
      'POST /menu HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const frame = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    while (sent < 10 * 1024 * 1024 && !big.received() && !big.socket.destroyed) {
      const flushed = big.socket.write(frame);
      sent += frame.length;
      if (!flushed) await Promise.race([new Promise((done) => big.socket.once('drain', done)), sleep(100)]);
      await sleep(1);
    }
    expect(await until(() => big.received().includes('\r\n\r\n{'), 2_000)).toBe(true);
    expect(statusOf(big.received())).toBe(413);
    // The answer came after a little more than the 64 KiB limit, nowhere near 10 MB.
    expect(sent).toBeLessThan(1024 * 1024);
    await Promise.race([big.closed, sleep(3_000)]);
    expect(big.socket.destroyed || big.socket.readableEnded).toBe(true);
  });

  it('with Expect: 100-continue, a body announced over the limit gets today’s 413 at once, never 100 Continue', async () => {
    const { port } = await listening();
    const announce = (expect: boolean) =>
      `POST /changes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n` +
      `X-Request-Id: big-body\r\n${expect ? 'Expect: 100-continue\r\n' : ''}\r\n`;
    // The headers only, as curl sends them before it waits for 100 Continue.
    const waiting = await client(port);
    waiting.socket.write(announce(true));
    expect(await until(() => waiting.received().includes('\r\n\r\n{'), 2_000)).toBe(true);
    expect(waiting.received()).not.toMatch(/^HTTP\/1\.1 100/);
    expect(statusOf(waiting.received())).toBe(413);
    await Promise.race([waiting.closed, sleep(3_000)]);
    expect(waiting.socket.destroyed || waiting.socket.readableEnded).toBe(true);
    // The same answer, headers and JSON error, as the same request without Expect gets.
    const plain = await client(port);
    plain.socket.write(announce(false));
    expect(await until(() => plain.received().includes('\r\n\r\n{'), 2_000)).toBe(true);
    const shape = (text: string) => ({
      head: text
        .slice(0, text.indexOf('\r\n\r\n'))
        .split('\r\n')
        .filter((line) => !/^date:/i.test(line)),
      body: bodyOf(text),
    });
    expect(shape(waiting.received())).toEqual(shape(plain.received()));
    expect(bodyOf(waiting.received()).error.code).toBe('payload_too_large');
  });

  it('with Expect: 100-continue, a body within its route’s limit gets 100 Continue and is read, as before', async () => {
    const { port, seed } = await listening();
    const key = await adminKey(runtime!);
    /** Sends the headers, waits for 100 Continue, then sends the body and reads the answer. */
    const continued = async (head: string, body: string) => {
      const waiting = await client(port);
      waiting.socket.write(
        `${head}Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      );
      expect(await until(() => waiting.received().startsWith('HTTP/1.1 100 Continue\r\n\r\n'), 2_000)).toBe(
        true,
      );
      waiting.socket.write(body);
      await waiting.closed;
      return waiting.received().slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
    };
    // The sync API's limit (16 MiB), not the public endpoints' (64 KiB), decides for its routes.
    const item = {
      id: 1,
      name: 'x'.repeat(100),
      product_type: 'Flower',
      prices: [{ unit: 'gram', amount: 1, price: 10 }],
    };
    const items = Array.from({ length: 800 }, (_, index) => ({ ...item, id: index + 1 }));
    const sync = await continued(
      `PUT /admin/v1/dispensaries/${seed.dispensaryId}/menu HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key.key}\r\nContent-Type: application/json\r\n`,
      JSON.stringify(items),
    );
    expect(JSON.stringify(items).length).toBeGreaterThan(64 * 1024);
    expect(statusOf(sync)).toBe(200);
    // A plain menu read (the read lane's kind of request) is read and answered too.
    const read = await continued(
      'POST /menu HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n',
      JSON.stringify({ username: seed.username, password: seed.password, collective_token: seed.token }),
    );
    expect(statusOf(read)).toBe(200);
  });

  it('the sync API takes up to 16 MiB: 17 MiB gets 413 at once', async () => {
    const { url } = await listening();
    const key = await adminKey(runtime!);
    const response = await rawRequest(url, {
      method: 'PUT',
      path: '/admin/v1/dispensaries/1/menu',
      headers: [
        ['authorization', `Bearer ${key.key}`],
        ['content-type', 'application/json'],
        ['content-length', String(17 * 1024 * 1024)],
      ],
    }).catch((error: Error) => ({ status: 0, body: error.message, headers: {} }));
    expect(response.status).toBe(413);
  });

  it('request headers over 16 KiB get 431 with a JSON error', async () => {
    const { port } = await listening();
    const big = await client(port);
    big.socket.write(`GET /menu HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    await big.closed;
    expect(statusOf(big.received())).toBe(431);
    expect(bodyOf(big.received()).error.code).toBe('headers_too_large');
    expect(big.received()).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
  });

  it('the header limit is configurable', async () => {
    const { url, seed } = await listening({ maxHeaderSize: 4096 });
    const headers = Object.entries(formBHeaders(seed)) as [string, string][];
    const fits = await rawRequest(url, {
      method: 'GET',
      path: '/store',
      headers: [...headers, ['x-pad', 'a'.repeat(3000)]],
    });
    expect(fits.status).toBe(200);
    const over = await rawRequest(url, {
      method: 'GET',
      path: '/store',
      headers: [...headers, ['x-pad', 'a'.repeat(5000)]],
    });
    expect(over.status).toBe(431);
  });
});

describe('limits: connections', () => {
  it('past maxConnections, new connections are closed at once; a freed slot is usable again', async () => {
    const { port, seed } = await listening({ maxConnections: 2 });
    const headers = Object.entries(formBHeaders(seed))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const request = `GET /store HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;
    const first = await client(port);
    const second = await client(port);
    first.socket.write(request);
    second.socket.write(request);
    expect(
      await until(() => statusOf(first.received()) === 200 && statusOf(second.received()) === 200, 2_000),
    ).toBe(true);

    const third = await client(port);
    third.socket.write(request);
    const closedAfter = await Promise.race([third.closed, sleep(2_000).then(() => -1)]);
    expect(closedAfter).toBeGreaterThanOrEqual(0);
    expect(third.received()).toBe('');

    first.socket.destroy();
    await first.closed;
    await sleep(50);
    const fourth = await client(port);
    fourth.socket.write(request);
    expect(await until(() => statusOf(fourth.received()) === 200, 2_000)).toBe(true);
  });
});
