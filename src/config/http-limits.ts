import { limitNumber } from './parse.js';
import { httpLimit } from './setting.js';

/**
 * The settings of the HTTP server's own limits (header size, timeouts, connections), a group of the
 * settings table (./settings.ts, where they are spread in their place): Node's server applies them,
 * and the read lane's server takes them as Fastify would (src/http/pipeline/read-lane.ts).
 */
export const HTTP_LIMIT_SETTINGS = {
  maxHeaderSize: httpLimit({
    flag: '--max-header-size <bytes>',
    env: 'MAX_HEADER_SIZE',
    doc: 'largest request headers (431 above)',
    parse: limitNumber,
    default: 16 * 1024,
  }),
  headersTimeoutMs: httpLimit({
    flag: '--headers-timeout-ms <ms>',
    env: 'HEADERS_TIMEOUT_MS',
    doc: 'time for the request headers to arrive',
    parse: limitNumber,
    default: 10_000,
  }),
  requestTimeoutMs: httpLimit({
    flag: '--request-timeout-ms <ms>',
    env: 'REQUEST_TIMEOUT_MS',
    doc: 'time for the whole request to arrive',
    parse: limitNumber,
    default: 60_000,
  }),
  keepAliveTimeoutMs: httpLimit({
    flag: '--keep-alive-timeout-ms <ms>',
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    doc: 'idle keep-alive connections close after',
    parse: limitNumber,
    default: 65_000,
  }),
  connectionTimeoutMs: httpLimit({
    flag: '--connection-timeout-ms <ms>',
    env: 'CONNECTION_TIMEOUT_MS',
    doc: 'a connection without traffic either way closes after',
    parse: limitNumber,
    default: 120_000,
  }),
  maxConnections: httpLimit({
    flag: '--max-connections <n>',
    env: 'MAX_CONNECTIONS',
    doc: 'open connections per process',
    parse: limitNumber,
    default: 4096,
  }),
  maxRequestsPerSocket: httpLimit({
    flag: '--max-requests-per-socket <n>',
    env: 'MAX_REQUESTS_PER_SOCKET',
    doc: 'requests per connection before it closes (0: no limit)',
    parse: limitNumber,
    default: 1000,
  }),
};
