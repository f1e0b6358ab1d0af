import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Granted } from '../../services/access.js';
import { encodeCursor } from '../../services/menu-feed.js';
import type { Representation, SnapshotView } from '../../services/menu-snapshots.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';

/** Authenticated answers with a validator: a cache may keep them for this client, but must ask first. */
const REVALIDATE = 'private, no-cache';
/** Authenticated answers without one (POSTs, filtered reads): nobody keeps them. */
const NO_STORE = 'no-store';

/**
 * Writes a snapshot as the answer: its bytes in the negotiated coding with `Content-Encoding`,
 * `Vary: Accept-Encoding`, and (with `validators`, for GET and HEAD) a strong `ETag`, answering
 * `If-None-Match` with 304 and no body. Fastify sends a Buffer as it is, with its Content-Length.
 */
export function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  representation: Representation,
  validators: boolean,
): FastifyReply {
  const status = representationHeaders(
    representation,
    validators,
    request.headers['if-none-match'],
    (name, value) => reply.header(name, value),
  );
  return status === 304 ? reply.code(304).send() : reply.send(representation.body);
}

/**
 * The headers of a snapshot answer (see `sendRepresentation`), each handed to `set`; its status: 304
 * when `If-None-Match` names the content (send no body then), else 200 with the representation's bytes.
 * The one place these headers are decided, for Fastify's replies and the read lane's (src/http/pipeline/read-lane.ts).
 */
export function representationHeaders(
  representation: Representation,
  validators: boolean,
  ifNoneMatchHeader: string | string[] | undefined,
  set: (name: string, value: string) => void,
): 200 | 304 {
  set('vary', 'Accept-Encoding');
  if (representation.cursor !== undefined) set(MENU_CURSOR, encodeCursor(representation.cursor));
  if (representation.link !== undefined) set('link', representation.link);
  if (validators) {
    set('etag', representation.etag);
    set('cache-control', REVALIDATE);
    if (ifNoneMatch(ifNoneMatchHeader, representation.tag)) return 304;
  } else {
    set('cache-control', NO_STORE);
  }
  if (representation.encoding !== 'identity') set('content-encoding', representation.encoding);
  set('content-type', 'application/json; charset=utf-8');
  return 200;
}

/**
 * A granted request's answer from a view's snapshot (see `sendRepresentation`): written at once when
 * the grant and the snapshot are in memory, as they are for nearly every read.
 */
export function sendSnapshot(
  request: FastifyRequest,
  reply: FastifyReply,
  { dispensary }: Granted,
  view: SnapshotView,
  validators: boolean,
): MaybePromise<FastifyReply> {
  return andThen(view.read(dispensary.id, request.headers['accept-encoding']), (answer) =>
    sendRepresentation(request, reply, answer, validators),
  );
}

/** The Menu-Cursor header: the live feed cursor the answer's content is consistent with. */
export function setMenuCursor(reply: FastifyReply, cursor: number | undefined): void {
  if (cursor !== undefined) reply.header(MENU_CURSOR, encodeCursor(cursor));
}

export const MENU_CURSOR = 'menu-cursor';

/** For answers that are computed per request rather than kept (inventory `since`, say). */
export function noStore(reply: FastifyReply): void {
  reply.header('cache-control', NO_STORE);
}

/**
 * Whether `If-None-Match` names the current content (RFC 9110, section 13.1.2): `*`, or any listed
 * tag, compared weakly (a `W/` prefix is ignored), in any of its codings (`-gzip`, `-br`): a client
 * holding the gzip bytes of the same content has the current answer too.
 */
export function ifNoneMatch(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value.includes(tag) && !value.includes('*')) return false;
  for (const raw of value.split(',')) {
    let candidate = raw.trim();
    if (candidate === '*') return true;
    if (candidate.startsWith('W/')) candidate = candidate.slice(2);
    if (candidate.length < 2 || !candidate.startsWith('"') || !candidate.endsWith('"')) continue;
    candidate = candidate.slice(1, -1);
    if (candidate === tag || candidate === `${tag}-gzip` || candidate === `${tag}-br`) return true;
  }
  return false;
}
