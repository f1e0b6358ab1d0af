import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';

/**
 * What the request line says of an answered request (answer-record.ts), in the order written, at
 * `info` with the message `request`. Never the URL (a query may carry anything), the headers or the
 * body: only what is safe to keep.
 */
export interface RequestLine {
  method: string;
  /** The route pattern; null for a request no route matched. */
  route: string | null;
  status: number;
  ms: number;
  address: string;
  /** Left out of the line when null or empty. */
  username: string | null;
  /** Left out of the line when null. */
  adminKey: string | null;
}

/** Writes one request's line, `requestId` bound as the request's child logger binds it (`reqId`). */
export type RequestLineWriter = (requestId: string, line: RequestLine) => void;

const {
  chindingsSym,
  endSym,
  formattersSym,
  hooksSym,
  lsCacheSym,
  messageKeySym,
  mixinSym,
  nestedKeySym,
  needsMetadataGsym,
  serializersSym,
  streamSym,
  stringifiersSym,
  timeSym,
} = pino.symbols;
/** Not in pino's typings, though exported with the others. */
const msgPrefixSym = (pino.symbols as unknown as Record<string, symbol | undefined>).msgPrefixSym;

/** The fields of the line and of the request logger's bindings: none may have a serializer of its own. */
const FIELDS = ['reqId', 'method', 'route', 'status', 'ms', 'address', 'username', 'adminKey'];

const writers = new WeakMap<object, RequestLineWriter | null>();

/**
 * A writer of the request line for `logger` that puts the line together itself, byte for byte as
 * `logger.child({ reqId }, {}).info(fields, 'request')` writes it, without the child logger pino makes
 * for it (about 1 µs) and pino's walk over the fields (another µs): the line is written on every request
 * at the default level (bench/PROFILE.md, round twenty-five). Null for a logger whose lines this
 * cannot foresee (not pino, or a pino with a mixin, a log formatter, a stream hook, a nested key, a
 * message prefix, redaction, serializers of these fields, or a destination that wants each line's
 * metadata): the request logger then writes through pino as before. Kept per logger, so it is worked out once.
 */
export function requestLineWriter(logger: FastifyBaseLogger): RequestLineWriter | null {
  let writer = writers.get(logger);
  if (writer === undefined) {
    // pino exports the symbols of its internals, not their types: each is checked before use.
    writer = compile(logger as unknown as Record<symbol, unknown>);
    writers.set(logger, writer);
  }
  return writer;
}

function compile(logger: Record<symbol, unknown>): RequestLineWriter | null {
  const level = (logger[lsCacheSym] as Record<number, unknown> | undefined)?.[pino.levels.values.info!];
  const time = logger[timeSym];
  const chindings = logger[chindingsSym];
  const end = logger[endSym];
  const stream = logger[streamSym] as { write?: unknown; [needsMetadataGsym]?: unknown } | undefined;
  const serializers = (logger[serializersSym] ?? {}) as Record<string, unknown>;
  const formatters = logger[formattersSym] as { log?: unknown } | undefined;
  const hooks = logger[hooksSym] as { streamWrite?: unknown } | undefined;
  const foreseeable =
    typeof level === 'string' &&
    typeof time === 'function' &&
    typeof chindings === 'string' &&
    typeof end === 'string' &&
    stream !== undefined &&
    typeof stream.write === 'function' &&
    stream[needsMetadataGsym] !== true &&
    !logger[mixinSym] &&
    !formatters?.log &&
    !hooks?.streamWrite &&
    !logger[nestedKeySym] &&
    msgPrefixSym !== undefined &&
    !logger[msgPrefixSym] &&
    logger[messageKeySym] === 'msg' &&
    // Redaction leaves its stringifiers here (plain keys, and a symbol for a wildcard).
    Reflect.ownKeys((logger[stringifiersSym] ?? {}) as object).length === 0 &&
    FIELDS.every((field) => !serializers[field]);
  if (!foreseeable) return null;
  const timestamp = time as () => string;
  // Looked up on every line, as pino does: pino replaces a destination's write after a broken pipe.
  const destination = stream as { write(line: string): unknown };
  return (requestId, line) => {
    let text = `${level}${timestamp()}${chindings},"reqId":${JSON.stringify(requestId)},"method":${JSON.stringify(line.method)},"route":${line.route === null ? 'null' : JSON.stringify(line.route)},"status":${finite(line.status)},"ms":${finite(line.ms)},"address":${JSON.stringify(line.address)}`;
    if (line.username) text += `,"username":${JSON.stringify(line.username)}`;
    if (line.adminKey !== null) text += `,"adminKey":${JSON.stringify(line.adminKey)}`;
    destination.write(`${text},"msg":"request"${end}`);
  };
}

/** A number as pino writes it: null when it is not finite. */
const finite = (value: number): number | null => (Number.isFinite(value) ? value : null);

/** The request line as an object, for a logger that writes it through pino (no writer). */
export function requestLineFields(line: RequestLine): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    method: line.method,
    route: line.route,
    status: line.status,
    ms: line.ms,
    address: line.address,
  };
  if (line.username) fields.username = line.username;
  if (line.adminKey !== null) fields.adminKey = line.adminKey;
  return fields;
}
