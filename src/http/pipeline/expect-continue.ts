import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { onRequestHookHandler } from 'fastify';

/** Requests that sent `Expect: 100-continue` and have not been told to send their body yet. */
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Makes the server decide on `Expect: 100-continue` itself. Left alone, Node answers 100 Continue to
 * every such request before anything has looked at it, so a client announcing 10 MB for a 64 KiB
 * route starts sending them (curl does, for large bodies) and only then hears 413. Here the request
 * is marked and handed on as any other ('request', so every listener sees it); `continueWithinLimit`
 * sends 100 Continue once the route, and so its body limit, is known.
 */
export function decideContinue(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    awaitingContinue.add(request);
    server.emit('request', request, response);
  });
}

/** Whether the request waits for 100 Continue before it sends its body (the read lane leaves those to Fastify). */
export function awaitsContinue(request: IncomingMessage): boolean {
  return awaitingContinue.has(request);
}

/**
 * An onRequest hook of the app, before any that may refuse: 100 Continue, at once as before, to a
 * request that waits for it and announces a body within its route's limit. One announcing more is
 * never told to continue: Fastify's body reader refuses it from its Content-Length, before reading
 * any of it, with the 413 (headers, JSON error, connection closed) it gets without `Expect`.
 */
export const continueWithinLimit: onRequestHookHandler = (request, reply, done) => {
  if (awaitingContinue.delete(request.raw)) {
    const announced = Number(request.headers['content-length']);
    if (!(announced > request.routeOptions.bodyLimit)) reply.raw.writeContinue();
  }
  done();
};
