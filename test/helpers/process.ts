import type { ChildProcess } from 'node:child_process';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { expect } from 'vitest';

/** Resolves with how the process ended; rejects if it is still running after `timeoutMs`. */
export function waitForExit(
  child: ChildProcess,
  timeoutMs = 15_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`process ${child.pid} still running after ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request of its own: GET unless `method` says; no time limit unless `timeoutMs` sets one. */
export interface OwnRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
}

/**
 * Sends a request on a connection of its own (no agent, so nothing is shared with other requests),
 * handing its response or its error (a connection error, or no answer within `timeoutMs`) on.
 */
export function sendAlone(
  url: string,
  options: OwnRequest,
  onResponse: (response: IncomingMessage) => void,
  onError: (error: Error) => void,
): ClientRequest {
  const request = httpRequest(url, {
    method: options.method ?? 'GET',
    headers: options.headers,
    agent: false,
    timeout: options.timeoutMs,
  });
  request.on('timeout', () => request.destroy(new Error(`no answer from ${url} in time`)));
  request.on('error', onError);
  request.on('response', onResponse);
  request.end(options.body);
  return request;
}

/** One request on a connection of its own; a connection error rejects with the error (its `code` tells). */
export function send(url: string, options: OwnRequest = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    sendAlone(
      url,
      { ...options, timeoutMs: options.timeoutMs ?? 10_000 },
      (response) => readAnswer(response).then(resolve, reject),
      reject,
    );
  });
}

/** One request of a client under load: what its failures are called, how it is sent, what its 200 counts. */
export interface LoadRequest {
  label: string;
  send(): Promise<HttpAnswer>;
  answered(): void;
}

/**
 * Clients under load: each sends the request its `next` makes, again and again with `pauseMs` between,
 * until `stop`. Any answer but 200, and any connection error, goes into `failures` behind the
 * request's label.
 */
export class Load {
  readonly failures: string[] = [];
  private running = true;
  private readonly clients: Promise<void>[] = [];

  constructor(private readonly pauseMs: number) {}

  /** Starts a client. */
  add(next: () => LoadRequest): void {
    this.clients.push(this.client(next));
  }

  /** Stops every client once its request in flight is answered. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }

  private async client(next: () => LoadRequest): Promise<void> {
    while (this.running) {
      const request = next();
      try {
        const answer = await request.send();
        if (answer.status === 200) request.answered();
        else this.failures.push(`${request.label}${answer.status} ${answer.body.slice(0, 200)}`);
      } catch (error) {
        this.failures.push(`${request.label}${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
  }
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Reads a whole response into an answer. */
function readAnswer(response: IncomingMessage): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', reject);
    response.on('end', () =>
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}

export interface SlowUpload {
  /** Resolves once the first `chunksBeforeReady` chunks are on the wire: the request is in flight. */
  started: Promise<void>;
  /** The answer, or the connection error. */
  answer: Promise<HttpAnswer>;
  /** Stops sending (the body never completes). */
  stall(): void;
}

/**
 * A request whose body is written in `chunks` pieces `intervalMs` apart, the way a slow client on a
 * thin link sends a large full sync. `stall()` stops before the end, leaving the request hanging.
 */
export function slowUpload(
  url: string,
  options: {
    method: string;
    headers: Record<string, string>;
    body: Buffer;
    chunks: number;
    intervalMs: number;
  },
): SlowUpload {
  let stalled = false;
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const answer = new Promise<HttpAnswer>((resolve, reject) => {
    const request = httpRequest(url, {
      method: options.method,
      headers: { ...options.headers, 'content-length': String(options.body.length) },
      agent: false,
    });
    request.on('error', reject);
    request.on('response', (response) => readAnswer(response).then(resolve, reject));
    const size = Math.ceil(options.body.length / options.chunks);
    void (async () => {
      for (let index = 0; index < options.chunks; index++) {
        if (stalled || request.destroyed) return;
        request.write(options.body.subarray(index * size, (index + 1) * size));
        if (index === 1) markStarted();
        await new Promise((wait) => setTimeout(wait, options.intervalMs));
      }
      if (!stalled) request.end();
    })();
  });
  answer.catch(() => {});
  return {
    started,
    answer,
    stall: () => {
      stalled = true;
    },
  };
}

/** A menu of `count` items with `pricesPerItem` price entries each, large enough to take a while to write. */
export function bigMenu(count: number, pricesPerItem = 3, descriptionLength = 300): unknown[] {
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `Item ${index + 1}`,
    brand: `Brand ${index % 40}`,
    product_type: 'Flower',
    product_subtype: 'Hybrid',
    description: `${'d'.repeat(descriptionLength)} ${index}`,
    flavors: ['Berry', 'Pine'],
    effects: ['Calm'],
    conditions: [],
    prices: Array.from({ length: pricesPerItem }, (_, price) => ({
      unit: 'gram',
      amount: price + 1,
      price: 10 + price,
      stock: price * 2,
    })),
  }));
}

/** The `url` and `ops_url` that `serve --json` printed. */
export function opsUrlOf(output: string): string {
  const match = /"ops_url": "(http:\/\/[^"]+)"/.exec(output);
  expect(match, output).not.toBeNull();
  return match![1]!;
}
