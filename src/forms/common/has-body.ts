import type { IncomingHttpHeaders } from 'node:http';

/** Whether a request says it has a body. */
export function hasBody(headers: Pick<IncomingHttpHeaders, 'content-length' | 'transfer-encoding'>): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}
