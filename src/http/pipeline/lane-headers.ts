/**
 * The request headers the read lane and the forms' plain reads look at, read from `rawHeaders` in
 * one pass into an object of one shape, whatever order and case the client sent them in.
 *
 * Why not `request.headers`: Node builds that object one property at a time in the order the client
 * sent its headers, so every order is another hidden class. Optimized code that reads it is compiled
 * for the orders it has seen, and a client with a new order (a new load generator process, a new
 * client library) throws that code away: the lane's functions went back to the interpreter and were
 * compiled again, on the core that serves, at the start of every such client's requests (bench/PROFILE.md,
 * round thirty-five). Read through this object, the lane's code sees one shape only.
 *
 * A header of these sent more than once makes the whole set undefined: the lane then leaves the
 * request to Fastify, which reads Node's `request.headers` (repeated values joined, or the first kept,
 * by Node's rules) and answers as it always has.
 */
export class LaneHeaders {
  'accept-encoding': string | undefined = undefined;
  authorization: string | undefined = undefined;
  'content-length': string | undefined = undefined;
  'content-type': string | undefined = undefined;
  'dispensary-token': string | undefined = undefined;
  'if-none-match': string | undefined = undefined;
  password: string | undefined = undefined;
  store: string | undefined = undefined;
  'transfer-encoding': string | undefined = undefined;
  username: string | undefined = undefined;
  'x-request-id': string | undefined = undefined;
}

type LaneHeaderName = keyof LaneHeaders;

const LANE_HEADER_NAMES: ReadonlySet<string> = new Set(Object.keys(new LaneHeaders()));

const isLaneHeader = (name: string): name is LaneHeaderName => LANE_HEADER_NAMES.has(name);

/**
 * The lane's headers of a request (`rawHeaders`: name, value, name, value…, as sent), or undefined
 * when one of them was sent more than once.
 */
export function laneHeaders(rawHeaders: readonly string[]): LaneHeaders | undefined {
  const headers = new LaneHeaders();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    // Returns the very string when it has no capital letter: nothing made for a lower-case name.
    const name = rawHeaders[index]!.toLowerCase();
    if (!isLaneHeader(name)) continue;
    if (headers[name] !== undefined) return undefined;
    headers[name] = rawHeaders[index + 1]!;
  }
  return headers;
}
