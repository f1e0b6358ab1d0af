import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NotedLimit } from '../../infra/rate-limit/rate-limiter.js';
import { isDraining } from './drain.js';
import { rateLimitFields } from './rate-limit.js';

/** Sets one header on whatever holds an answer's headers (a reply, the lane's field list, an object). */
export type HeaderSetter<Target> = (target: Target, name: string, value: string) => void;

/**
 * The one place the standard headers of an answer are decided, for every path that answers: Fastify's
 * onSend (answerHeaders below), the read lane, and the answers written past Fastify's reply (event
 * streams: streamHeaders). Which are they:
 * - `x-content-type-options: nosniff`: a JSON API's answers are never sniffed as something else;
 * - `cache-control: no-store` unless the answer chose its own (`chosenCacheControl`): answers carry
 *   credentials' data, never stored by a cache unless a route says so (ETag revalidation, pages);
 * - `ratelimit-policy` and `ratelimit` of the buckets the request was counted in (src/http/pipeline/rate-limit.ts);
 * - `x-request-id`: the request's id (the client's own when valid, src/http/pipeline/request-id.ts);
 * - `connection: close` while the server drains (`closing`, src/http/pipeline/drain.ts).
 * Synchronous and allocation-free beyond the RateLimit texts: it runs on every answer.
 */
export function standardHeaders<Target>(
  target: Target,
  set: HeaderSetter<Target>,
  requestId: string,
  rateLimits: NotedLimit[] | null,
  chosenCacheControl: boolean,
  closing: boolean,
): void {
  set(target, 'x-content-type-options', 'nosniff');
  if (!chosenCacheControl) set(target, 'cache-control', 'no-store');
  const limits = rateLimitFields(rateLimits);
  if (limits) {
    set(target, 'ratelimit-policy', limits.policy);
    set(target, 'ratelimit', limits.state);
  }
  set(target, 'x-request-id', requestId);
  if (closing) set(target, 'connection', 'close');
}

const onReply: HeaderSetter<FastifyReply> = (reply, name, value) => {
  reply.header(name, value);
};

const onObject: HeaderSetter<OutgoingHttpHeaders> = (headers, name, value) => {
  headers[name] = value;
};

/** Whether an answer to `request` says `Connection: close`: while draining, on HTTP/1 (HTTP/2 has none). */
function closing(request: FastifyRequest): boolean {
  return request.raw.httpVersionMajor < 2 && isDraining(request.server);
}

/**
 * The standard headers on a Fastify reply (the app's one onSend hook calls it), and Vary: Origin on an
 * answer that depends on the Origin (CORS), even when a route replaced Vary.
 */
export function answerHeaders(request: FastifyRequest, reply: FastifyReply): void {
  standardHeaders(
    reply,
    onReply,
    request.id,
    request.rateLimits,
    reply.hasHeader('cache-control'),
    closing(request),
  );
  if (reply.hasHeader('access-control-allow-origin')) {
    const vary = String(reply.getHeader('vary') ?? '');
    if (!/(^|,)\s*origin\s*(,|$)/i.test(vary)) reply.header('vary', vary ? `${vary}, Origin` : 'Origin');
  }
}

/**
 * The headers of an answer written past Fastify's reply (a hijacked event stream, which no onSend
 * hook sees): what hooks and the route set on the reply already (CORS), the stream's own `fields`,
 * then the standard headers.
 */
export function streamHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  fields: OutgoingHttpHeaders,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) headers[name] = value;
  Object.assign(headers, fields);
  standardHeaders(
    headers,
    onObject,
    request.id,
    request.rateLimits,
    headers['cache-control'] !== undefined,
    closing(request),
  );
  return headers;
}
