import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { errorText } from '../../src/http/pipeline/errors.js';
import { RateLimitedError, ServiceError, withoutStack } from '../../src/services/errors.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

/**
 * The read lane answers its refusals (a 403 for a token nobody holds, a 429) from kept text
 * (src/http/pipeline/errors.ts, errorText): their bytes on the wire, head and body, in their order, must stay
 * what they were when each refusal made its body anew (bench/PROFILE.md, round thirty-two).
 */

let runtime: TestRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** Sends `head` on a connection of its own; the answer's bytes as text, up to the end of its body. */
function rawAnswer(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(received.toString('latin1'));
      if (end < 0 || !length || received.length < end + 4 + Number(length[1])) return;
      socket.destroy();
      resolve(received.toString('utf8'));
    });
    socket.on('error', reject);
  });
}

/** A Form B menu read with these credentials and a request id of the client's. */
const menuRead = (seed: TestRuntime['seed'], token: string) =>
  `GET /menu HTTP/1.1\r\nHost: lane\r\nstore: ${token}\r\nusername: ${seed.username}\r\npassword: ${seed.password}\r\nx-request-id: refusal-1\r\n\r\n`;

/** The clock's header, which no two answers share. */
const withoutDate = (answer: string) => answer.replace(/\r\nDate: [^\r]+\r\n/, '\r\nDate: *\r\n');

describe("the read lane's refusals", () => {
  it('answers a 403 for an unknown token with the same bytes as before, head and body', async () => {
    runtime = await testRuntime();
    const url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const answer = withoutDate(await rawAnswer(url, menuRead(runtime.seed, 'no-such-token')));
    expect(answer).toBe(EXPECTED_403);
  });

  it('answers a 429 of the address bucket with the same bytes as before, head and body', async () => {
    runtime = await testRuntime({ config: { rateLimitAddress: { ratePerSecond: 0.001, burst: 1 } } });
    const url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    await rawAnswer(url, menuRead(runtime.seed, runtime.seed.token));
    const answer = withoutDate(await rawAnswer(url, menuRead(runtime.seed, runtime.seed.token)));
    expect(answer).toBe(EXPECTED_429);
  });
});

describe('errorText', () => {
  it("counts a kept refusal's length in bytes, not in characters, around any request id", () => {
    // A message beyond ASCII (an en dash, a micro sign): two bytes each in UTF-8.
    const kept = Object.freeze(
      withoutStack(() => new RateLimitedError('Too many requests – wait 5 s, not 5 µs.', 5)),
    );
    for (const requestId of ['a', 'refusal-1', '0b7e7c1e-5d3a-4c55-9a43-8f0f2b1c9d10']) {
      const body = errorText(kept, requestId);
      expect(body.text).toBe(
        JSON.stringify({
          error: {
            code: 'rate_limited',
            message: 'Too many requests – wait 5 s, not 5 µs.',
            request_id: requestId,
          },
        }),
      );
      expect(body.bytes, requestId).toBe(Buffer.byteLength(body.text));
    }
    const once = new ServiceError('invalid_request', 'Not “this” one.');
    expect(errorText(once, 'x').bytes).toBe(Buffer.byteLength(errorText(once, 'x').text));
  });
});

/** The 403's bytes as the lane wrote them before its refusals were kept text (commit 325573a), the Date masked. */
const EXPECTED_403 = [
  'HTTP/1.1 403 Forbidden',
  'content-type: application/json; charset=utf-8',
  'x-content-type-options: nosniff',
  'cache-control: no-store',
  'ratelimit-policy: "address";q=1000000;w=1',
  'ratelimit: "address";r=999999;t=1',
  'x-request-id: refusal-1',
  'content-length: 212',
  'Date: *',
  'Connection: keep-alive',
  'Keep-Alive: timeout=65, max=1000',
  '',
  '{"error":{"code":"invalid_token","message":"The dispensary token is not valid (unknown, or replaced by a newer one and past its grace period). Ask the dispensary for its current token.","request_id":"refusal-1"}}',
].join('\r\n');

/** The 429's bytes, likewise (the bucket's one token taken by the read before it). */
const EXPECTED_429 = [
  'HTTP/1.1 429 Too Many Requests',
  'retry-after: 1000',
  'content-type: application/json; charset=utf-8',
  'x-content-type-options: nosniff',
  'cache-control: no-store',
  'ratelimit-policy: "address";q=1;w=1000',
  'ratelimit: "address";r=0;t=1000',
  'x-request-id: refusal-1',
  'content-length: 181',
  'Date: *',
  'Connection: keep-alive',
  'Keep-Alive: timeout=65, max=1000',
  '',
  '{"error":{"code":"rate_limited","message":"Too many requests from your address: at most 0.001 per second, in bursts of up to 1. Retry after 1000 seconds.","request_id":"refusal-1"}}',
].join('\r\n');
