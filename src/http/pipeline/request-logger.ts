import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { type RequestLine, requestLineFields, requestLineWriter } from './request-line.js';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger (`request.log`) that becomes the real child logger, with the request id bound,
 * only when something is written to it. Fastify makes a child per request, and pino serializes its
 * bindings at once: a cost paid on every request (bench/PROFILE.md) although at the usual levels most
 * requests write nothing (the request line is skipped below `info`; warnings and errors are rare).
 * Every line written carries the same bindings as before.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  /** Whether a line at `level` would be written: a line the level drops makes no child either. */
  private writes(level: string): boolean {
    if (this.made) return true;
    const parent = this.parent as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };
    return parent.isLevelEnabled?.(level) ?? true;
  }

  /** The parent's level until a child exists (a child starts at its parent's level). */
  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: LogArguments): void {
    if (this.writes('fatal')) this.real.fatal(...args);
  }
  error(...args: LogArguments): void {
    if (this.writes('error')) this.real.error(...args);
  }
  warn(...args: LogArguments): void {
    if (this.writes('warn')) this.real.warn(...args);
  }
  info(...args: LogArguments): void {
    if (this.writes('info')) this.real.info(...args);
  }
  debug(...args: LogArguments): void {
    if (this.writes('debug')) this.real.debug(...args);
  }
  trace(...args: LogArguments): void {
    if (this.writes('trace')) this.real.trace(...args);
  }
  silent(...args: LogArguments): void {
    this.real.silent(...args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  /**
   * Writes the request line at `info`. While no child exists and the request id is the one binding
   * (no route level or serializers), it is put together without one when the parent's lines can be
   * foreseen (request-line.ts): the same bytes as the child would write.
   */
  writeRequestLine(line: RequestLine): void {
    const requestId = this.bindings.reqId;
    const plain =
      this.made === undefined &&
      typeof requestId === 'string' &&
      Object.keys(this.bindings).length === 1 &&
      Object.keys(this.options ?? {}).length === 0;
    const writer = plain ? requestLineWriter(this.parent) : null;
    if (writer) {
      if (this.writes('info')) writer(requestId as string, line);
    } else this.info(requestLineFields(line), 'request');
  }
}

/** Writes the request line through `log`: a request's logger puts it together itself where it can. */
export function writeRequestLine(log: FastifyBaseLogger, line: RequestLine): void {
  if (log instanceof RequestLogger) log.writeRequestLine(line);
  else log.info(requestLineFields(line), 'request');
}

/** Fastify's `childLoggerFactory`: a RequestLogger instead of a child made at once. */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new RequestLogger(logger, bindings, options);

/** The logger of a request Fastify does not see (the read lane's): the same lazy child, `reqId` bound. */
export function requestLogger(parent: FastifyBaseLogger, requestId: string): FastifyBaseLogger {
  return new RequestLogger(parent, { reqId: requestId }, {});
}
