import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { PassThrough, type Readable } from 'node:stream';
import type {
  FastifyBaseLogger,
  FastifyHttpOptions,
  FastifyServerOptions,
  preParsingHookHandler,
} from 'fastify';
import type { FormMenu, PlainRead, RequestCredentials } from '../../forms/form.js';
import { addressKey } from '../../infra/address.js';
import type { NotedLimit } from '../../infra/rate-limit/rate-limiter.js';
import type { AccessService } from '../../services/access.js';
import { type RateLimitedError, ServiceError } from '../../services/errors.js';
import type { Representation, SnapshotView } from '../../services/menu-snapshots.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';
import { type HeaderSetter, standardHeaders } from './answer-headers.js';
import { answerEnded, answerStarted, recordAnswer } from './answer-record.js';
import { countAuthFailure, errorText, faultAnswer, retryAfterOf, STATUS_BY_CODE } from './errors.js';
import { awaitsContinue, decideContinue } from './expect-continue.js';
import { type GrantedRequest, grantRequest } from './grant.js';
import { type LaneHeaders, laneHeaders } from './lane-headers.js';
import type { Metrics } from './metrics.js';
import { note, type RateLimitOptions } from './rate-limit.js';
import type { CredentialCounter } from './request-decorations.js';
import { requestIdOf } from './request-id.js';
import { requestLogger } from './request-logger.js';
import { representationHeaders } from './snapshot-reply.js';

/**
 * The read lane: the most frequent requests of all, plain menu reads (each form's `/menu` that its
 * transport declares a plain read for: Form B `GET /menu`, Form A `POST /menu`, Form v1 `GET /v1/menu`
 * with its query), answered on the
 * server's `request` event before Fastify routes them, with the same rules in the same order (the
 * address bucket, the access check and the credential's bucket, the snapshot, the standard headers,
 * the metrics and the request line), each a function Fastify's hooks call too. Routing, the hook
 * chain, body parsing, the reply object and its serializers cost more than the rest of such a read
 * (bench/PROFILE.md, round eight); the lane pays for none of them.
 *
 * It takes only requests it can answer exactly as Fastify would: the form's menu path (without a
 * query, unless the form's plain read takes one), while the app is neither draining nor cut off from
 * its database, that the form's plain read recognises
 * (PlainRead in src/forms/form.ts). Anything else goes to Fastify (a body the lane has read is handed
 * to it as it came), nothing counted yet, which answers it or refuses it with its message. Once the
 * lane has counted a request it answers it, refusals and failures included. Off with CORS, whose
 * answers' headers depend on the Origin.
 */
export interface ReadLaneOptions {
  /** The access check of every public route. */
  access: AccessService;
  /** Every form's plain read, with the form's menu and the method of its routes. */
  forms: readonly LaneForm[];
  /** The public routes' largest request body, in bytes: a larger body is Fastify's to refuse. */
  bodyLimit: number;
  metrics: Metrics;
  /** The app's logger: the lane's request line is written to a child of it, as Fastify's is. */
  log: FastifyBaseLogger;
  rateLimits?: RateLimitOptions;
  countCredential?: CredentialCounter;
  /** The client address of a request, as Fastify's `request.ip` tells it (src/http/pipeline/protection.ts). */
  clientAddress(request: IncomingMessage): string;
  /** False while the app should answer through Fastify alone (draining, the database unreachable). */
  open(): boolean;
}

/** A form the lane serves: its transport's plain read and ways (method, validators), and its menu. */
export interface LaneForm {
  method: 'GET' | 'POST';
  /** The path of its menu route (`/menu`, `/v1/menu`), as the metrics and the request line name it. */
  path: string;
  /** The form's answers carry validators (ETag, 304 for If-None-Match). */
  validators: boolean;
  read: PlainRead;
  menu: FormMenu;
}

/** What the lane knows of a request it answers: what the rate limits and the access check note on it. */
class LaneRequest implements GrantedRequest {
  rateLimits: NotedLimit[] | null = null;
  credentialUsername: string | null = null;
  inFlight = false;

  constructor(
    readonly method: 'GET' | 'POST',
    /** Its form's menu route. */
    readonly route: string,
    /** Its form's answers carry validators. */
    readonly validators: boolean,
    readonly ip: string,
    readonly id: string,
    readonly started: number,
    private readonly counter: CredentialCounter | undefined,
    private readonly appLog: FastifyBaseLogger,
  ) {}

  countCredential(username: string): MaybePromise<RateLimitedError | undefined> {
    return this.counter?.call(this, username);
  }

  /** Its logger, `reqId` bound, as Fastify's `request.log`: made when asked, which is only to write. */
  get log(): FastifyBaseLogger {
    return requestLogger(this.appLog, this.id);
  }
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
/** The lane: true when it took the request (and answers it), false to leave it to Fastify. */
type Lane = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Bodies the lane read and then left to Fastify, until Fastify reads them (replayReadBody). */
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

/** The app's HTTP server with the lane in front of Fastify's handler: see laneServer. */
export interface LaneServer {
  /** Fastify's `serverFactory` option. */
  serverFactory: NonNullable<FastifyServerOptions['serverFactory']>;
  /** Puts the lane in front, once the app's routes (and so the forms' menus) exist. */
  install(options: ReadLaneOptions): void;
}

/**
 * Fastify's documented `serverFactory`: the app's node HTTP server, whose requests go to the lane
 * first and, when it does not take them, to Fastify's handler. Until `install`, everything goes to
 * Fastify. `inject` calls Fastify's handler directly, so injected requests never take the lane. Add
 * `replayReadBody` as a preParsing hook of the app.
 *
 * With a server factory Fastify leaves the server's settings to it: they are set here as Fastify sets
 * them when it makes the server (node_modules/fastify/lib/server.js, getServerInstance), from the
 * same options: `http` (header size, headers timeout, request timeout, the timeout check interval)
 * when the server is made, then the keep-alive and request timeouts, the idle socket timeout and the
 * requests per socket.
 */
export function laneServer(): LaneServer {
  let lane: Lane | undefined;
  let fastifyHandler: Handler | undefined;
  return {
    serverFactory: (handler, fastifyOptions) => {
      fastifyHandler = handler;
      // Fastify hands the factory its own options (typed loosely): the server's are these.
      const options = fastifyOptions as ServerSettings;
      const server: Server = createServer(options.http ?? {}, (request, response) => {
        if (lane === undefined || !lane(request, response)) handler(request, response);
      });
      // Fastify has given each its default when left out (keep-alive 72 s; no request or socket timeout).
      if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
      if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
      if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
      if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
      decideContinue(server);
      return server;
    },
    install(options) {
      if (!fastifyHandler) throw new Error('laneServer: install before the app made its server');
      lane = readLane(options, fastifyHandler);
    },
  };
}

/** The options of Fastify's that are the node server's settings. */
type ServerSettings = Pick<
  FastifyHttpOptions<Server>,
  'http' | 'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout' | 'maxRequestsPerSocket'
>;

/** Pushes a header onto the lane's list of fields (name, value, name, value…), as writeHead takes it. */
const addField: HeaderSetter<string[]> = (fields, name, value) => {
  fields.push(name, value);
};

/**
 * The form whose plain read a request's method and path (its url up to `queryAt`, -1 without a query)
 * are: compared in place, as a key built of them was a new string to hash on every request.
 */
type FormOfRoute = (method: string | undefined, url: string, queryAt: number) => LaneForm | undefined;

function formOfRoute(forms: readonly LaneForm[]): FormOfRoute {
  const routes = new Set<string>();
  for (const form of forms) {
    const route = `${form.method} ${form.path}`;
    if (routes.has(route)) throw new Error(`read lane: two forms declare a plain read of ${route}`);
    routes.add(route);
  }
  return (method, url, queryAt) => {
    const length = queryAt < 0 ? url.length : queryAt;
    for (const form of forms) {
      if (form.method === method && form.path.length === length && url.startsWith(form.path)) return form;
    }
    return undefined;
  };
}

/** The lane as a function: true when it took the request (and answers it), false to leave it to Fastify. */
function readLane(options: ReadLaneOptions, fastifyHandler: Handler): Lane {
  const { access, metrics, log, rateLimits, countCredential, bodyLimit } = options;
  const address = rateLimits?.address;
  const limiter = rateLimits?.limiter;
  const formOf = formOfRoute(options.forms);

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
    headers: LaneHeaders,
    response: ServerResponse,
    counted: LaneRequest,
    result: Representation | ServiceError,
  ): void {
    const fields: string[] = [];
    const set = (name: string, value: string) => {
      fields.push(name, value);
    };
    let status: number;
    // A refusal's body stays text, its length in bytes kept with it (errorText): Node joins a text
    // body to the head and writes them as one string, where a Buffer made per refusal cost its
    // allocation, its encoding and one more piece in the writev (bench/PROFILE.md, round thirty-two).
    let body: Buffer | string | undefined;
    /** The body's length in bytes: its Content-Length. */
    let bytes = 0;
    // A representation chooses its Cache-Control; an error takes the default.
    const refused = result instanceof ServiceError;
    if (result instanceof ServiceError) {
      status = STATUS_BY_CODE[result.code];
      const error = errorText(result, counted.id);
      body = error.text;
      bytes = error.bytes;
      const retryAfter = retryAfterOf(result);
      if (retryAfter !== undefined) set('retry-after', String(retryAfter));
      set('content-type', 'application/json; charset=utf-8');
      countAuthFailure(metrics, result.code, counted.route);
    } else {
      status = representationHeaders(result, counted.validators, headers['if-none-match'], set);
      if (status === 200) {
        body = result.body;
        bytes = result.body.length;
      }
    }
    // The lane runs only while the app is not draining: never `Connection: close`.
    standardHeaders(fields, addField, counted.id, counted.rateLimits, !refused, false);
    if (body !== undefined) set('content-length', String(bytes));
    response.writeHead(status, fields);
    response.end(body);
    recordAnswer(metrics, counted, counted.route, status, performance.now() - counted.started, log);
  }

  /** Answers a request the lane took: at once when everything is in memory, else when it is ready. */
  function serve(
    headers: LaneHeaders,
    response: ServerResponse,
    counted: LaneRequest,
    credentials: RequestCredentials,
    view: SnapshotView,
  ): void {
    answerStarted(metrics, counted);
    let result: MaybePromise<Representation | ServiceError>;
    try {
      result = answer(counted, credentials, view, headers['accept-encoding']);
    } catch (error) {
      result = faultAnswer(error, counted.log);
    }
    if (!(result instanceof Promise)) {
      send(headers, response, counted, result);
      return;
    }
    result.then(
      (ready) => finish(headers, response, counted, ready),
      (error: unknown) => finish(headers, response, counted, faultAnswer(error, counted.log)),
    );
  }

  /** An answer that had to wait (a first read, scrypt, Redis): unless the client went away meanwhile. */
  function finish(
    headers: LaneHeaders,
    response: ServerResponse,
    counted: LaneRequest,
    result: Representation | ServiceError,
  ): void {
    if (response.destroyed || response.writableEnded) {
      answerEnded(metrics, counted);
      return;
    }
    send(headers, response, counted, result);
  }

  const laneRequest = (form: LaneForm, request: IncomingMessage, headers: LaneHeaders, started: number) =>
    new LaneRequest(
      form.method,
      form.path,
      form.validators,
      options.clientAddress(request),
      requestIdOf(headers['x-request-id']),
      started,
      countCredential,
      log,
    );

  /** Takes a request its form's plain read recognised (`body`: the text read, if any), else leaves it. */
  function take(
    form: LaneForm,
    request: IncomingMessage,
    headers: LaneHeaders,
    response: ServerResponse,
    body: string | undefined,
    started: number,
  ): boolean {
    const plain = form.read.recognise(request, headers, body);
    if (plain === undefined) return false;
    let view: SnapshotView;
    try {
      view = form.menu.view(form.read.parameters(plain));
    } catch {
      // Parameters the menu refuses (a bad value, a cursor of another query): the route says why.
      return false;
    }
    serve(
      headers,
      response,
      laneRequest(form, request, headers, started),
      form.read.credentials(plain),
      view,
    );
    return true;
  }

  /** A form whose plain read has a body: reads it, then answers, or leaves it (with the body read) to Fastify. */
  function readBody(
    form: LaneForm,
    request: IncomingMessage,
    headers: LaneHeaders,
    response: ServerResponse,
  ): void {
    const started = performance.now();
    const chunks: Buffer[] = [];
    // A client that goes away before its body ends is neither answered nor counted: 'end' never comes
    // (and Node emits no 'error' on a request nobody listens to for one).
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      if (options.open() && take(form, request, headers, response, body.toString('utf8'), started)) return;
      readBodies.set(request, body);
      fastifyHandler(request, response);
    });
  }

  return (request, response) => {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const form = formOf(request.method, url, query);
    // A request waiting for 100 Continue is Fastify's: it alone knows the route's body limit.
    if (form === undefined || (query >= 0 && !form.read.takesQuery) || !options.open()) return false;
    if (awaitsContinue(request)) return false;
    const headers = laneHeaders(request.rawHeaders);
    // One of the headers it reads sent twice: Fastify's, which reads them as Node joins them.
    if (headers === undefined) return false;
    if (form.read.announcesBody) {
      if (!form.read.announcesBody(headers, bodyLimit)) return false;
      readBody(form, request, headers, response);
      return true;
    }
    return take(form, request, headers, response, undefined, performance.now());
  };
}
