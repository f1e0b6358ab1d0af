/**
 * The push side of `npm run soak`: live streams (/events of both forms) and a webhook receiver that
 * record when each change (by cursor) arrived, and the check, after the run, that every change of the
 * feed reached every one of them: changes made, delivered, missing, duplicates, and how long each
 * stock change took to arrive.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';

/** What one push channel (a stream, the webhook receiver) received, by cursor. */
export class Arrivals {
  /** Cursor to when it first arrived (performance.now()). */
  readonly first = new Map<string, number>();
  duplicates = 0;
  /** Problems that are errors of the soak (a bad signature, a stream refused). */
  readonly problems: string[] = [];
  /** Streams: how often the server ended the stream and it was resumed. */
  resumed = 0;

  constructor(readonly name: string) {}

  arrived(cursor: string): void {
    if (this.first.has(cursor)) this.duplicates++;
    else this.first.set(cursor, performance.now());
  }

  /** The newest cursor received (cursors are fixed-width digits: their order is the string order). */
  last(): string | undefined {
    let newest: string | undefined;
    for (const cursor of this.first.keys()) if (newest === undefined || cursor > newest) newest = cursor;
    return newest;
  }
}

/**
 * A Standard Webhooks receiver on loopback: verifies each delivery's signature with the
 * `standardwebhooks` package (400 and an error when it fails) and records its cursor.
 */
export async function startWebhookReceiver(): Promise<{
  url: string;
  arrivals: Arrivals;
  /** The secret is known only once the webhook is added, after the receiver has an address. */
  useSecret(secret: string): void;
  close(): Promise<void>;
}> {
  const arrivals = new Arrivals('webhook receiver');
  let verifier: Webhook | undefined;
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      try {
        if (!verifier) throw new Error('no secret yet');
        const payload = verifier.verify(
          Buffer.concat(parts).toString('utf8'),
          request.headers as Record<string, string>,
        ) as { cursor: string };
        arrivals.arrived(payload.cursor);
        response.writeHead(204).end();
      } catch (error) {
        arrivals.problems.push(`webhook delivery not verified: ${(error as Error).message}`);
        response.writeHead(400).end();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/soak/hooks`,
    arrivals,
    useSecret: (secret) => {
      verifier = new Webhook(secret);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request that opens a stream. */
export interface StreamOpening {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface StreamRequest {
  /** The request to open the stream after `cursor` (a resume sends the last cursor received). */
  open(cursor: string): StreamOpening;
}

/**
 * A live /events stream that records the `id:` (the cursor) of each event, and resumes after the last
 * one when the server ends it (a reader too far behind is ended by design, and resumes): the resume
 * replays what it missed, so the count of changes received stays exact.
 */
export function followStream(
  url: string,
  name: string,
  after: string,
  request: StreamRequest,
  localAddress: string,
): { arrivals: Arrivals; stop(): void } {
  const arrivals = new Arrivals(name);
  let stopped = false;
  let current: ReturnType<typeof httpRequest> | undefined;
  const connect = (cursor: string) => {
    const { method, headers, body } = request.open(cursor);
    const outgoing = httpRequest(url, {
      method,
      headers:
        body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      localAddress,
    });
    current = outgoing;
    const resume = (why: string) => {
      if (stopped || current !== outgoing) return;
      current = undefined;
      arrivals.resumed++;
      if (arrivals.resumed > 1_000) {
        arrivals.problems.push(`${name}: resumed more than 1,000 times (last: ${why})`);
        return;
      }
      setTimeout(() => connect(arrivals.last() ?? after), 1_000);
    };
    outgoing.on('error', (error) => resume(error.message));
    outgoing.on('response', (response) => {
      if (response.statusCode !== 200) {
        arrivals.problems.push(`${name}: ${response.statusCode} when opening the stream`);
        response.resume();
        response.on('end', () => resume(`status ${response.statusCode}`));
        return;
      }
      // An event ends at an empty line; its `id:` line names the change it carries.
      let id: string | undefined;
      const lines = createInterface({ input: response, crlfDelay: Number.POSITIVE_INFINITY });
      lines.on('line', (line) => {
        if (line === '') {
          if (id !== undefined) arrivals.arrived(id);
          id = undefined;
        } else if (line.startsWith('id:')) {
          id = line.slice(3).trim();
        }
      });
      // readline passes on the response's errors (a connection cut when the server stops).
      lines.on('error', (error) => resume(error.message));
      response.on('close', () => resume('the server ended the stream'));
    });
    outgoing.end(body);
  };
  connect(after);
  return {
    arrivals,
    stop: () => {
      stopped = true;
      current?.destroy();
    },
  };
}

/** One change of Form B's /changes. */
export interface FeedChange {
  cursor: string;
  type: string;
  item_id: number | null;
  item: Record<string, unknown> | null;
}

/** Every change of the feed after `after`, read through Form B's /changes, 1,000 at a time. */
export async function readFeed(
  base: string,
  headers: () => Record<string, string>,
  after: string,
): Promise<FeedChange[]> {
  const changes: FeedChange[] = [];
  let cursor = after;
  for (;;) {
    const page = await getJson<{ changes: FeedChange[]; next_cursor: string; has_more: boolean }>(
      `${base}/changes?after=${cursor}&limit=1000`,
      headers(),
    );
    changes.push(...page.changes);
    cursor = page.next_cursor;
    if (!page.has_more) return changes;
  }
}

function getJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => {
        if (response.statusCode === 200) resolve(JSON.parse(body) as T);
        else reject(new Error(`GET ${url}: ${response.statusCode} ${body.slice(0, 200)}`));
      });
    })
      .on('error', reject)
      .end();
  });
}

/** A stock change the soak made: which entry, the (unique) level, and when the sync API answered. */
export interface StockChange {
  itemId: number;
  stock: number;
  answeredAt: number;
}

/** The cursor of each stock change: the first change of its item in the feed that shows its level. */
export function stockCursors(
  feed: readonly FeedChange[],
  made: readonly StockChange[],
): Map<StockChange, string> {
  const byLevel = new Map<string, string>();
  for (const change of feed) {
    if (change.type !== 'item.upserted' || change.item_id === null || !change.item) continue;
    const prices = (change.item.prices ?? change.item.variants) as
      | { unit: string; amount: number; stock: number | null }[]
      | undefined;
    const gram = prices?.find((price) => price.unit === 'gram' && price.amount === 1);
    const key = `${change.item_id}:${gram?.stock}`;
    if (gram && !byLevel.has(key)) byLevel.set(key, change.cursor);
  }
  const cursors = new Map<StockChange, string>();
  for (const change of made) {
    const cursor = byLevel.get(`${change.itemId}:${change.stock}`);
    if (cursor !== undefined) cursors.set(change, cursor);
  }
  return cursors;
}

/** What one channel got of the changes made. */
export interface Delivery {
  name: string;
  made: number;
  delivered: number;
  missing: string[];
  duplicates: number;
  stockDelivered: number;
  stockMade: number;
  /** From the sync API's answer to the arrival, ms (0 when it arrived before the answer was read). */
  latencies: number[];
  resumed: number;
  problems: string[];
}

export function delivery(
  arrivals: Arrivals,
  feed: readonly FeedChange[],
  stock: Map<StockChange, string>,
): Delivery {
  const missing = feed.filter((change) => !arrivals.first.has(change.cursor)).map((change) => change.cursor);
  const latencies: number[] = [];
  for (const [change, cursor] of stock) {
    const at = arrivals.first.get(cursor);
    if (at !== undefined) latencies.push(Math.max(0, at - change.answeredAt));
  }
  return {
    name: arrivals.name,
    made: feed.length,
    delivered: feed.length - missing.length,
    missing,
    duplicates: arrivals.duplicates,
    stockDelivered: latencies.length,
    stockMade: stock.size,
    latencies: latencies.sort((a, b) => a - b),
    resumed: arrivals.resumed,
    problems: arrivals.problems,
  };
}

/** Whether every channel has received every change of the feed. */
export function allDelivered(channels: readonly Arrivals[], feed: readonly FeedChange[]): boolean {
  return channels.every((arrivals) => feed.every((change) => arrivals.first.has(change.cursor)));
}
