import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress, RESPONSE_KEPT, WebhookClient } from '../../src/infra/webhook-http.js';

/** A receiver on loopback that answers what `answer` says and counts what it got. */
async function receiver(
  answer: (
    request: IncomingMessage,
    body: string,
  ) => { status: number; headers?: Record<string, string>; body?: string },
) {
  const received: { url: string; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      received.push({ url: request.url ?? '', body });
      const { status, headers, body: out } = answer(request, body);
      response.writeHead(status, headers);
      response.end(out ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('webhook targets: no loopback, private, link-local or metadata address', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    'not an address',
  ])('%s is refused', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is allowed',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );
});

describe('WebhookClient', () => {
  let hits: Awaited<ReturnType<typeof receiver>>;
  const guarded = new WebhookClient({ allowPrivate: false });
  const open = new WebhookClient({ allowPrivate: true });
  const send = (client: WebhookClient, url: string) =>
    client.send({ url, headers: { 'webhook-id': 'msg_test' }, body: '{"a":1}', timeoutMs: 2_000 });

  beforeAll(async () => {
    hits = await receiver((request) => {
      if (request.url === '/redirect') return { status: 302, headers: { location: '/landed' } };
      if (request.url === '/big') return { status: 200, body: 'x'.repeat(100_000) };
      return { status: 204 };
    });
  });
  afterAll(async () => {
    guarded.close();
    open.close();
    await hits.close();
  });

  it('refuses http:// unless private targets are allowed', async () => {
    const result = await send(guarded, `http://example.com:${hits.port}/`);
    expect(result.statusCode).toBeNull();
    expect(result.error).toContain('https://');
  });

  it('refuses a name that resolves to loopback when connecting (the receiver sees nothing)', async () => {
    const before = hits.received.length;
    const result = await send(guarded, `https://localhost:${hits.port}/`);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which webhooks may not reach/);
    expect(hits.received.length).toBe(before);
  });

  it('refuses a loopback or metadata address written in the URL', async () => {
    for (const url of [
      `https://127.0.0.1:${hits.port}/`,
      'https://169.254.169.254/latest/meta-data/',
      `https://[::ffff:127.0.0.1]:${hits.port}/`,
    ]) {
      const result = await send(guarded, url);
      expect(result.statusCode, url).toBeNull();
      expect(result.error, url).toContain('must not point at');
    }
  });

  it('delivers to a loopback receiver when private targets are allowed', async () => {
    const result = await send(open, `http://127.0.0.1:${hits.port}/ok`);
    expect(result).toMatchObject({ statusCode: 204, error: null });
    expect(hits.received.at(-1)).toEqual({ url: '/ok', body: '{"a":1}' });
  });

  it('does not follow a redirect: the 302 is the answer', async () => {
    const result = await send(open, `http://127.0.0.1:${hits.port}/redirect`);
    expect(result.statusCode).toBe(302);
    expect(hits.received.map((hit) => hit.url)).not.toContain('/landed');
  });

  it(`keeps at most ${RESPONSE_KEPT} bytes of the answer`, async () => {
    const result = await send(open, `http://127.0.0.1:${hits.port}/big`);
    expect(result.statusCode).toBe(200);
    expect(result.response?.length).toBe(RESPONSE_KEPT);
  });

  it('an answer that does not come within the timeout is a failure, not a hang', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const result = await open.send({
      url: `http://127.0.0.1:${port}/`,
      headers: {},
      body: '{}',
      timeoutMs: 200,
    });
    expect(result.statusCode).toBeNull();
    expect(result.error).toContain('no answer within 200 ms');
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
