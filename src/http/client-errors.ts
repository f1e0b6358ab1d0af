import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

interface ClientError extends Error {
  code?: string;
}

/** What Node's parser refuses before any request exists: status, our error code and what to do. */
function describe(error: ClientError): { status: number; code: string; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      code: 'request_timeout',
      message: 'The request took too long to arrive. Send it again, faster.',
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'headers_too_large',
      message: 'The request headers are larger than this server accepts. Send smaller headers.',
    };
  }
  return { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP.' };
}

/**
 * Errors Node raises while parsing (oversized headers, a garbled request line, a slow client) get the
 * same JSON error body and x-request-id as every other answer, instead of Fastify's default text.
 */
export function clientErrorHandler(this: FastifyInstance, error: ClientError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = describe(error);
  // Fastify calls this with its app: the answer is counted in that app's metrics.
  this.metrics?.recordUnparsedRequest(status);
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
