/**
 * The ceiling: a bare node:http server that answers every request with one pre-built response (the
 * same status, headers and bytes the real server sent). The bench sends it the response to serve
 * over IPC before each workload.
 *
 * It must be the fastest honest server for those bytes, or every ratio to it flatters the server
 * under test. So it does per request only what any server must: a request without a body (GET, HEAD)
 * is answered at once, in the parser's callback, as a plain `node:http` handler answers; the header
 * list is flattened once per workload, not per request. Only a request with a body (Form A's POST)
 * is read to its end first, as the real server must read it to answer. Waiting for `end` on every
 * request, as this server once did, costs a resumed stream, an `end` listener and two more ticks per
 * request: about a fifth more CPU than a plain handler sending the same bytes, a fifth fewer
 * requests per second (bench/PROFILE.md, round eleven). Told its port by PORT and the server's keep-alive timeout by KEEP_ALIVE_MS.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

interface Canned {
  status: number;
  headers: Record<string, string>;
  /** base64 */
  body: string;
}

let status = 200;
/** Name, value, name, value…: the form `writeHead` takes without building anything per request. */
let headers: string[] = [];
let body = Buffer.alloc(0);
/** A 304 has no body; nor has the answer to a HEAD request. */
let bodyless = false;

function answer(request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(status, headers);
  response.end(bodyless || request.method === 'HEAD' ? undefined : body);
}

const server = createServer((request, response) => {
  if (request.method === 'GET' || request.method === 'HEAD') return answer(request, response);
  // A request that may carry a body (Form A's POST): read (and drop) it before answering.
  request.resume();
  request.on('end', () => answer(request, response));
});
// The real server's, which Node writes in `Keep-Alive: timeout=` (Node's default when it sent none).
const keepAliveMs = Number(process.env.KEEP_ALIVE_MS);
if (Number.isFinite(keepAliveMs)) server.keepAliveTimeout = keepAliveMs;
process.on('message', (message: Canned) => {
  status = message.status;
  headers = Object.entries(message.headers).flat();
  body = Buffer.from(message.body, 'base64');
  bodyless = status === 304;
  process.send?.('ready');
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
process.on('disconnect', () => process.exit(0));
