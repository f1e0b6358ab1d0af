import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { cliJson, type ServerProcess } from './cli.js';
import type { Seed } from './runtime.js';

/** One POST a receiver got, as it arrived. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Date.now() when the whole body had arrived. */
  at: number;
  /** The status the receiver answered (or will answer, after its delay). */
  status: number;
}

/** What the receiver answers: 204, a failure status, or nothing for a while first. */
export type ReceiverMode = { status: number; delayMs?: number };

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** What it answers from now on. */
  mode: ReceiverMode;
  /** The payloads of `received`, each verified with the standardwebhooks package (throws on a bad one). */
  verified(secret: string): { id: string; payload: WebhookPayload }[];
  close(): Promise<void>;
}

/** One change of a dispensary's change feed, as /changes lists it and a webhook carries it. */
export interface FeedChange {
  cursor: string;
  at: string;
  type: string;
  item_id: number | null;
  item: Record<string, unknown> | null;
  reason: string | null;
}

export interface WebhookPayload {
  type: string;
  dispensary_id: number;
  cursor: string;
  at: string;
  data: FeedChange;
}

/** A webhook receiver on loopback (tests run with --webhook-allow-private), recording every POST. */
export async function startReceiver(mode: ReceiverMode = { status: 204 }): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const state = { mode };
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const { status, delayMs } = state.mode;
      received.push({
        id: String(request.headers['webhook-id']),
        timestamp: String(request.headers['webhook-timestamp']),
        signature: String(request.headers['webhook-signature']),
        body: Buffer.concat(parts).toString('utf8'),
        at: Date.now(),
        status,
      });
      const answer = () => {
        if (!response.destroyed) response.writeHead(status).end(status >= 300 ? 'receiver says no' : '');
      };
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/menu`,
    received,
    get mode() {
      return state.mode;
    },
    set mode(next: ReceiverMode) {
      state.mode = next;
    },
    verified(secret) {
      const signer = new Webhook(secret);
      return received.map((entry) => ({
        id: entry.id,
        payload: signer.verify(entry.body, {
          'webhook-id': entry.id,
          'webhook-timestamp': entry.timestamp,
          'webhook-signature': entry.signature,
        }) as WebhookPayload,
      }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first accepted (2xx) delivery of each webhook-id, in arrival order (an answer lost to a crash repeats one). */
export function firstDeliveries(received: readonly Received[]): Received[] {
  const seen = new Set<string>();
  return received.filter((entry) => {
    if (entry.status >= 300 || seen.has(entry.id)) return false;
    seen.add(entry.id);
    return true;
  });
}

/** A fixed key, so that every process (and the CLI) of a PostgreSQL test reads the same secrets. */
export const TEST_WEBHOOK_KEY = Buffer.alloc(32, 7).toString('base64');
export const KEY_ARGS = ['--webhook-key', TEST_WEBHOOK_KEY];

/**
 * Subscribes through the CLI, as an operator does; gives the id and the secret. The receivers are on
 * loopback, so private addresses are allowed unless `allowPrivate` is false.
 */
export async function addWebhook(
  db: string,
  seed: Seed,
  url: string,
  extra: string[] = [],
  { allowPrivate = true }: { allowPrivate?: boolean } = {},
): Promise<{ id: number; secret: string }> {
  return cliJson(db, [
    ...KEY_ARGS,
    ...(allowPrivate ? ['--webhook-allow-private'] : []),
    'webhook',
    'add',
    '--credential',
    seed.username,
    '--dispensary',
    String(seed.dispensaryId),
    '--url',
    url,
    ...extra,
  ]);
}

/**
 * The sync API of a server process, with an admin key. A 503 (the database unreachable for a moment,
 * which on a machine shared by many test runs happens) is retried as its message says: the write it
 * refused was not made.
 */
export function syncApi(server: ServerProcess, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${server.url}/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status === 503 && attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text === '' ? undefined : JSON.parse(text);
    }
  };
}
