import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, preParsingHookHandler } from 'fastify';
import { type GrantedRequest, grantRequest } from '../forms/common/grant.js';
import { representationHeaders } from '../forms/common/snapshot-reply.js';
import type { RequestCredentials } from '../forms/form.js';
import { announcesPlainFormABody, plainFormABody } from '../forms/form-a/request.js';
import { plainFormBCredentials } from '../forms/form-b/request.js';
import { addressKey } from '../infra/address.js';
import type { NotedLimit } from '../infra/rate-limit/rate-limiter.js';
import type { AccessService } from '../services/access.js';
import { type RateLimitedError, ServiceError } from '../services/errors.js';
import type { Representation, SnapshotView } from '../services/menu-snapshots.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { countAuthFailure, errorText, faultAnswer, retryAfterOf, STATUS_BY_CODE } from './errors.js';
import { type Metrics, refusingLimit } from './metrics.js';
import { logsRequests, requestLine } from './protection.js';
import { note, type RateLimitOptions, rateLimitFields } from './rate-limit.js';
import type { CredentialCounter } from './request-decorations.js';
import { requestIdOf } from './request-id.js';
import { requestLogger } from './request-logger.js';

/**
 * The read lane: the most frequent requests of all, plain menu reads (Form B `GET /menu`, Form A
 * `POST /menu`), answered on the server's `request` event before Fastify routes them, with the same
 * rules in the same order (the address bucket, the access check and the credential's bucket, the
 * snapshot, the request id, the headers, the metrics and the request line), each a function Fastify's
 * hooks call too. Routing, the hook chain, body parsing, the reply object and its serializers cost
 * more than the rest of such a read (bench/PROFILE.md, round eight); the lane pays for none of them.
 *
 * It takes only requests it can answer exactly as Fastify would: `/menu` without a query, while the
 * app is neither draining nor cut off from its database; Form B with the three credential headers
 * once each and no body, Form A with a small JSON body of the credentials, the token and `active`
 * (plainFormBCredentials, plainFormABody). Anything else goes to Fastify (a Form A body the lane has
 * read is handed to it as it came), nothing counted yet, which answers it or refuses it with its
 * message. Once the lane has counted a request it answers it, refusals and failures included. Off
 * with CORS, whose answers' headers depend on the Origin.
 */
export interface ReadLaneOptions {
  /** The access check of every public route. */
  access: AccessService;
  /** Form B's menu: the view its route reads. */
  formBMenu: SnapshotView;
  /** Form A's menu views: the active items, or every item (`active: false`). */
  formAMenu(active: boolean): SnapshotView;
  /** The public routes' largest request body, in bytes: a larger Form A body is Fastify's to refuse. */
  bodyLimit: number;
  metrics: Metrics;
  /** The app's logger: the lane's request line is written to a child of it, as Fastify's is. */
  log: FastifyBaseLogger;
  rateLimits?: RateLimitOptions;
  countCredential?: CredentialCounter;
  /** The client address of a request, as Fastify's `request.ip` tells it (src/http/protection.ts). */
  clientAddress(request: IncomingMessage): string;
  /** False while the app should answer through Fastify alone (draining, the database unreachable). */
  open(): boolean;
}

const ROUTE = '/menu';

/** What the lane knows of a request it answers: what the rate limits and the access check note on it. */
class LaneRequest implements GrantedRequest {
  rateLimits: NotedLimit[] | null = null;
  credentialUsername: string | null = null;

  constructor(
    readonly method: 'GET' | 'POST',
    readonly ip: string,
    readonly id: string,
    readonly started: number,
    private readonly counter: CredentialCounter | undefined,
  ) {}

  countCredential(username: string): MaybePromise<RateLimitedError | undefined> {
    return this.counter?.call(this, username);
  }
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Form A bodies the lane read and then left to Fastify, until Fastify reads them (replayReadBody). */
const readBodies = new WeakMap<IncomingMessage, Buffer>();

/**
 * A preParsing hook for every route: the body of a request the lane read and left to Fastify, as a
 * stream of the same bytes (the request's own stream has ended). Nothing for any other request.
 */
export const replayReadBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const body = readBodies.get(request.raw);
  if (body === undefined) {
    done(null, payload);
    return;
  }
  readBodies.delete(request.raw);
  const replay: Readable = new PassThrough().end(body);
  done(null, replay);
};

/**
 * Puts the lane in front of Fastify's handler of `app.server` (Fastify's own `request` listener,
 * the server's first): requests the lane does not take reach Fastify as before. `inject` calls
 * Fastify's handler directly, so injected requests never take the lane. Add `replayReadBody` as a
 * preParsing hook of the app.
 */
export function installReadLane(app: FastifyInstance, options: ReadLaneOptions): void {
  const server: Server = app.server;
  const [fastifyHandler] = server.listeners('request') as Handler[];
  if (!fastifyHandler) throw new Error('installReadLane: the server has no request handler yet');
  const lane = readLane(options, fastifyHandler);
  server.removeListener('request', fastifyHandler);
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!lane(request, response)) fastifyHandler(request, response);
  });
}

/** The lane as a function: true when it took the request (and answers it), false to leave it to Fastify. */
function readLane(options: ReadLaneOptions, fastifyHandler: Handler) {
  const { access, metrics, log, rateLimits, countCredential, formBMenu, formAMenu, bodyLimit } = options;
  const address = rateLimits?.address;
  const limiter = rateLimits?.limiter;

  function answer(
    counted: LaneRequest,
    credentials: RequestCredentials,
    view: SnapshotView,
    acceptEncoding: string | undefined,
  ): MaybePromise<Representation | ServiceError> {
    const refusal =
      address && limiter
        ? andThen(limiter.take(address, addressKey(counted.ip)), (decision) =>
            note(counted, address, decision),
          )
        : undefined;
    return andThen(refusal, (refused) =>
      refused
        ? refused
        : andThen(grantRequest(access, counted, credentials), (grant) =>
            grant instanceof ServiceError ? grant : view.read(grant.dispensary.id, acceptEncoding),
          ),
    );
  }

  function send(
    request: IncomingMessage,
    response: ServerResponse,
    counted: LaneRequest,
    result: Representation | ServiceError,
  ): void {
    const fields: string[] = [];
    const set = (name: string, value: string) => {
      fields.push(name, value);
    };
    let status: number;
    let body: Buffer | undefined;
    if (result instanceof ServiceError) {
      status = STATUS_BY_CODE[result.code];
      body = Buffer.from(errorText(result, counted.id));
      const retryAfter = retryAfterOf(result);
      if (retryAfter !== undefined) set('retry-after', String(retryAfter));
      set('content-type', 'application/json; charset=utf-8');
      set('cache-control', 'no-store');
      countAuthFailure(metrics, result.code, ROUTE);
      if (status === 429) metrics.recordRateLimited(refusingLimit(counted.rateLimits));
    } else {
      // Form B's answers carry validators (ETag, 304); Form A's (POST) never do.
      const validators = counted.method === 'GET';
      status = representationHeaders(result, validators, request.headers['if-none-match'], set);
      if (status === 200) body = result.body;
    }
    set('x-content-type-options', 'nosniff');
    const limits = rateLimitFields(counted.rateLimits);
    if (limits) {
      set('ratelimit-policy', limits.policy);
      set('ratelimit', limits.state);
    }
    set('x-request-id', counted.id);
    if (body) set('content-length', String(body.length));
    response.writeHead(status, fields);
    response.end(body);

    const elapsedMs = performance.now() - counted.started;
    metrics.tallyAnswer(counted.method, ROUTE, status, elapsedMs / 1000);
    metrics.countInFlight(-1);
    if (logsRequests(log)) {
      requestLogger(log, counted.id).info(
        requestLine(counted.method, ROUTE, status, elapsedMs, counted.ip, counted.credentialUsername),
        'request',
      );
    }
  }

  /** Answers a request the lane took: at once when everything is in memory, else when it is ready. */
  function serve(
    request: IncomingMessage,
    response: ServerResponse,
    counted: LaneRequest,
    credentials: RequestCredentials,
    view: SnapshotView,
  ): void {
    metrics.countInFlight(1);
    let result: MaybePromise<Representation | ServiceError>;
    try {
      result = answer(counted, credentials, view, request.headers['accept-encoding']);
    } catch (error) {
      result = faultAnswer(error, requestLogger(log, counted.id));
    }
    if (!(result instanceof Promise)) {
      send(request, response, counted, result);
      return;
    }
    result.then(
      (ready) => finish(request, response, counted, ready),
      (error: unknown) =>
        finish(request, response, counted, faultAnswer(error, requestLogger(log, counted.id))),
    );
  }

  /** An answer that had to wait (a first read, scrypt, Redis): unless the client went away meanwhile. */
  function finish(
    request: IncomingMessage,
    response: ServerResponse,
    counted: LaneRequest,
    result: Representation | ServiceError,
  ): void {
    if (response.destroyed || response.writableEnded) {
      metrics.countInFlight(-1);
      return;
    }
    send(request, response, counted, result);
  }

  const laneRequest = (method: 'GET' | 'POST', request: IncomingMessage, started: number) =>
    new LaneRequest(
      method,
      options.clientAddress(request),
      requestIdOf(request.headers['x-request-id']),
      started,
      countCredential,
    );

  /** Form A: reads the small body, then answers it, or leaves it (with the body read) to Fastify. */
  function readFormA(request: IncomingMessage, response: ServerResponse): void {
    const started = performance.now();
    const chunks: Buffer[] = [];
    // A client that goes away before its body ends is neither answered nor counted: 'end' never comes
    // (and Node emits no 'error' on a request nobody listens to for one).
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      const plain = options.open() ? plainFormABody(body.toString('utf8')) : undefined;
      if (!plain) {
        readBodies.set(request, body);
        fastifyHandler(request, response);
        return;
      }
      serve(
        request,
        response,
        laneRequest('POST', request, started),
        plain.credentials,
        formAMenu(plain.active),
      );
    });
  }

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.url !== ROUTE || !options.open()) return false;
    if (request.method === 'GET') {
      const credentials = plainFormBCredentials(request);
      if (!credentials) return false;
      serve(request, response, laneRequest('GET', request, performance.now()), credentials, formBMenu);
      return true;
    }
    if (request.method === 'POST' && announcesPlainFormABody(request.headers, bodyLimit)) {
      readFormA(request, response);
      return true;
    }
    return false;
  };
}
