import { randomUUID } from 'node:crypto';

/**
 * A client may send its own request id for tracing; anything unusual is replaced by ours. Either kind
 * needs no escaping in JSON or a header (error bodies are written around it: src/http/pipeline/errors.ts).
 */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The id of a request: the client's `X-Request-Id` when it is plain and short, else a new UUID. */
export function requestIdOf(offered: string | string[] | undefined): string {
  return typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
}
