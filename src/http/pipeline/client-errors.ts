import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type HeaderSetter, standardHeaders } from './answer-headers.js';

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

const addLine: HeaderSetter<string[]> = (lines, name, value) => {
  lines.push(`${name}: ${value}`);
};

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
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
    ];
    // No request was counted in any bucket; the socket is closed after this answer.
    standardHeaders(head, addLine, requestId, null, false, true);
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
