import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * The servers whose apps are draining. Kept per node server, not per Fastify instance: every
 * encapsulated instance of an app (a plugin's `request.server`) shares its server.
 */
const draining = new WeakSet<object>();

/** What the drain knows of each connection: requests it sent, and how many are being answered. */
interface ConnectionState {
  served: number;
  active: number;
}

/** Every open connection of each app's server, with its state. */
const connections = new WeakMap<FastifyInstance, Map<Socket, ConnectionState>>();
/** How many connections each app's server has accepted. */
const accepted = new WeakMap<FastifyInstance, number>();

/**
 * Before the listener closes, it keeps accepting until a turn of the event loop has polled without
 * accepting anything and no connection has arrived for BACKLOG_QUIET_MS (at most BACKLOG_WAIT_MS):
 * Node accepts what waits in the listen backlog a few connections per poll, and whatever is still
 * there when the listener closes is reset by the kernel. (A poll that accepts nothing means the
 * backlog was empty: a listener with connections waiting is always readable.)
 */
export const BACKLOG_QUIET_MS = 100;
export const BACKLOG_WAIT_MS = 1_000;

/**
 * How long a connection that was accepted but has not sent its request yet gets, once the listener
 * has closed, to send it (it is then answered, with Connection: close), ms. Clients write their
 * request right after connecting; one that says nothing for this long is closed.
 */
export const NEW_CONNECTION_GRACE_MS = 2_000;

/**
 * Makes `app.close()` a drain: from the moment it starts, every answer (to a request already in
 * flight, or to one that arrives on a kept-alive connection) carries `Connection: close`
 * (src/http/pipeline/answer-headers.ts asks isDraining), so each
 * connection ends after its current answer and the listener can close. Requests in flight are
 * finished, never refused. Call once per app, before it listens, with `return503OnClosing: false`.
 *
 * Node's own `closeIdleConnections` (which `server.close()` and Fastify's close call) counts a
 * connection that has not sent its first request yet as idle and destroys it: the client, which
 * connected before the signal, sees a reset. Here a connection counts as idle only after it was
 * answered at least once; a new one gets NEW_CONNECTION_GRACE_MS to send its request (closeGracefully).
 */
export function drainOnClose(app: FastifyInstance): void {
  app.addHook('preClose', async () => {
    draining.add(app.server);
  });
  const server = app.server;
  const open = new Map<Socket, ConnectionState>();
  connections.set(app, open);
  server.on('connection', (socket: Socket) => {
    accepted.set(app, (accepted.get(app) ?? 0) + 1);
    open.set(socket, { served: 0, active: 0 });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const state = open.get(request.socket);
    if (!state) return;
    state.served++;
    state.active++;
    response.once('close', () => {
      state.active--;
    });
  });
  server.closeIdleConnections = () => {
    for (const [socket, state] of open) if (state.served > 0 && state.active === 0) socket.destroy();
  };
}

/** Closes the connections that were accepted and never sent a request. */
function closeSilentConnections(app: FastifyInstance): void {
  for (const [socket, state] of connections.get(app) ?? []) if (state.served === 0) socket.destroy();
}

/** From now on every answer of the app carries `Connection: close` (the drain delay, then the close). */
export function startDraining(app: FastifyInstance): void {
  draining.add(app.server);
}

/**
 * For answers that never finish by themselves (event streams): `end` ends them when the app starts
 * closing, before it waits for its connections, so that a stream never holds a shutdown up until its
 * deadline. Each stream ends with its last event written; clients reconnect elsewhere and resume.
 */
export function endOnClose(app: FastifyInstance, end: () => void): void {
  app.addHook('preClose', async () => {
    end();
  });
}

/** Whether `app` (or any encapsulated instance of it) is draining: its answers say `Connection: close`. */
export function isDraining(app: FastifyInstance): boolean {
  return draining.has(app.server);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface CloseReport {
  /** True when the deadline passed and the connections still open were cut. */
  cutOff: boolean;
}

/**
 * Closes a listening app gracefully: every answer carries `Connection: close`; for `drainDelayMs` the
 * app still accepts and serves (the caller's /readyz says 503 meanwhile); then the listener closes,
 * but only once the listen backlog is empty (BACKLOG_QUIET_MS), so that connections waiting there are
 * accepted and answered rather than reset. Every request in flight finishes, a connection
 * accepted but silent gets NEW_CONNECTION_GRACE_MS to send its request, then the app's onClose hooks
 * run. `timeoutMs` after the start (drain delay included) whatever is still open is cut. Works on an
 * app that never listened (tests with inject) too.
 */
export async function closeGracefully(
  app: FastifyInstance,
  timeoutMs: number,
  drainDelayMs = 0,
): Promise<CloseReport> {
  const server = app.server;
  const started = Date.now();
  startDraining(app);
  if (server.listening) {
    if (drainDelayMs > 0) await sleep(Math.min(drainDelayMs, timeoutMs));
    const waitFrom = Date.now();
    let quietSince = waitFrom;
    for (;;) {
      const before = accepted.get(app) ?? 0;
      // A timer, then an immediate: the event loop's poll phase (where connections are accepted) runs
      // between them, so a turn that accepted nothing has seen an empty backlog.
      await sleep(10);
      await new Promise((resolve) => setImmediate(resolve));
      const now = Date.now();
      if ((accepted.get(app) ?? 0) !== before) quietSince = now;
      else if (now - quietSince >= BACKLOG_QUIET_MS) break;
      if (now - waitFrom >= BACKLOG_WAIT_MS) break;
    }
  }
  const closingAt = Date.now();
  // A connection that turns idle while we wait (its answer sent) would otherwise keep the close
  // waiting for the keep-alive timeout; Node closes idle connections only once, when close starts.
  const reaper = setInterval(() => {
    server.closeIdleConnections?.();
    if (Date.now() - closingAt >= NEW_CONNECTION_GRACE_MS) closeSilentConnections(app);
  }, 100);
  reaper.unref();
  let deadline: NodeJS.Timeout | undefined;
  const closed = app.close().then(() => 'closed' as const);
  const expired = new Promise<'expired'>((resolve) => {
    deadline = setTimeout(() => resolve('expired'), Math.max(0, timeoutMs - (Date.now() - started)));
    deadline.unref();
  });
  try {
    const outcome = await Promise.race([closed, expired]);
    if (outcome === 'expired') {
      server.closeAllConnections?.();
      for (const socket of connections.get(app)?.keys() ?? []) socket.destroy();
      await closed;
      return { cutOff: true };
    }
    return { cutOff: false };
  } finally {
    clearInterval(reaper);
    clearTimeout(deadline);
  }
}
