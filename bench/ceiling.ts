/**
 * The ceiling: a bare node:http server that answers every request with one pre-built response (the
 * same status, headers and bytes the real server sent). The bench sends it the response to serve
 * over IPC before each workload.
 */
import { createServer } from 'node:http';

interface Canned {
  status: number;
  headers: Record<string, string>;
  /** base64 */
  body: string;
}

let status = 200;
let headers: [string, string][] = [];
let body = Buffer.alloc(0);

process.on('message', (message: Canned) => {
  status = message.status;
  headers = Object.entries(message.headers);
  body = Buffer.from(message.body, 'base64');
  process.send?.('ready');
});

const server = createServer((request, response) => {
  // Read (and drop) a request body, as a server must before answering a POST.
  request.resume();
  request.on('end', () => {
    response.writeHead(status, headers.flat());
    response.end(status === 304 || request.method === 'HEAD' ? undefined : body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
process.on('disconnect', () => process.exit(0));
