/**
 * One autocannon run, in its own process (pinned to another core than the server by the bench).
 * Reads its job as JSON from argv[2], prints the result as one JSON line on stdout.
 */
import { createRequire } from 'node:module';
import autocannon from 'autocannon';

// autocannon keeps every response body as a string (`body += chunk`), decoding each chunk as UTF-8.
// For gzip and brotli bodies (binary) that decoding costs more than the server spends on the request,
// so the load generator, not the server, would set the pace. The bench reads no bodies: drop them.
// (Bytes are still counted: autocannon counts them on the socket, not here.)
const require = createRequire(import.meta.url);
const PipelinedRequestsQueue = require('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: unknown): void };
};
PipelinedRequestsQueue.prototype.addBody = () => {};

export interface LoadJob {
  url: string;
  connections: number;
  durationSeconds: number;
  method: 'GET' | 'POST' | 'HEAD';
  headers: Record<string, string>;
  body?: string;
  /** Round-robin: each request carries the next of these `store` header values. */
  rotateStore?: string[];
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  bytesPerSecond: number;
  total: number;
  errors: number;
  timeouts: number;
  /** By status code (autocannon), or 2xx/3xx and other (wrk, which counts no more than that). */
  statusCodes: Record<string, number>;
  /** The load generator that produced the figures. */
  client: 'wrk' | 'autocannon';
}

const job = JSON.parse(process.argv[2]!) as LoadJob;
let next = 0;
const rotate = job.rotateStore;
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.durationSeconds,
  method: job.method,
  headers: job.headers,
  body: job.body,
  requests: rotate
    ? [
        {
          setupRequest: (request) => {
            const store = rotate[next++ % rotate.length]!;
            return { ...request, headers: { ...request.headers, store } };
          },
        },
      ]
    : undefined,
});
const statusCodes: Record<string, number> = {};
for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
  statusCodes[code] = (stats as { count: number }).count;
}
const output: LoadResult = {
  requestsPerSecond: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  bytesPerSecond: result.throughput.average,
  total: result.requests.total,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes,
  client: 'autocannon',
};
process.stdout.write(`${JSON.stringify(output)}\n`);
