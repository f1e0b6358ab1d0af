/** Raw HTTP for the benchmark: one request, the answer's bytes as sent. */
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { buffer } from 'node:stream/consumers';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes on the wire, not decoded. */
  body: Buffer;
  ms: number;
}

/** One HTTP request with a fresh connection; the body comes back as sent (no decompression). */
export function fetchRaw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        buffer(response).then(
          (body) =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body,
              ms: performance.now() - started,
            }),
          reject,
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** One request over `agent` (its kept-alive connections), the answer read and dropped: its status. */
export function statusOver(
  agent: Agent,
  url: string | URL,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
