import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The HTTP client of webhook deliveries, guarded against server-side request forgery: only
 * `https://` targets, never one that resolves to a loopback, private, link-local, metadata or other
 * special address. The address is checked when connecting (in the agent's DNS lookup), not only when
 * the URL is saved, so a name that later resolves elsewhere (DNS rebinding) is refused too. Redirects
 * are not followed (node's http client never does), and at most RESPONSE_KEPT bytes of the answer
 * are read. As request-filtering-agent and ssrf-req-filter do, with node's own BlockList.
 */

/** How much of a receiver's answer is kept, bytes. */
export const RESPONSE_KEPT = 4 * 1024;

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const V6_BLOCKED: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [network, prefix] of V4_BLOCKED) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of V6_BLOCKED) blocked.addSubnet(network, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (which may end in a dotted IPv4 part). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!;
  const words: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((word) => Number.parseInt(word, 16));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  words.push(...first, ...new Array(8 - first.length - last.length).fill(0), ...last);
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

/** The IPv4 address an IPv6 one embeds (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zeros(0, 12)) return v4(12); // ::a.b.c.d (deprecated "compatible")
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return v4(12); // 64:ff9b::/96, NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2); // 2002::/16, 6to4
  return undefined;
}

/** Whether a webhook may not be sent to this address (IPv4 or IPv6 text). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined && v4 !== '0.0.0.0' && blocked.check(v4, 'ipv4')) return true;
  if (v4 === '0.0.0.0') return true;
  return blocked.check(address, 'ipv6');
}

export class ForbiddenTargetError extends Error {
  readonly code = 'ERR_WEBHOOK_FORBIDDEN_TARGET';
}

/** The reason a URL may not be a webhook target, or undefined when it may (addresses are checked again on connect). */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url must be an absolute URL such as https://example.com/hooks/menu.';
  }
  if (text.length > 2000) return 'url must be at most 2,000 characters.';
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return 'url must start with https:// (http:// only with --webhook-allow-private, for development).';
  }
  if (url.username !== '' || url.password !== '') return 'url must not carry a username or password.';
  if (url.hash !== '') return 'url must not have a #fragment.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host)) {
    return `url must not point at a loopback, private, link-local or metadata address (${host}).`;
  }
  return undefined;
}

/** A DNS lookup that fails when any address the name resolves to is forbidden. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 4);
      return;
    }
    const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (forbidden || addresses.length === 0) {
      const refused = new ForbiddenTargetError(
        `${hostname} resolves to ${forbidden?.address ?? 'no address'}, which webhooks may not reach`,
      );
      callback(refused as NodeJS.ErrnoException, '', 4);
      return;
    }
    if (options.all) {
      (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    } else {
      callback(null, addresses[0]!.address, addresses[0]!.family);
    }
  });
};

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface WebhookResponse {
  /** null when there was no answer (refused, timed out, forbidden target). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first RESPONSE_KEPT bytes of the answer's body. */
  response: string | null;
}

export interface WebhookClientOptions {
  /** Development and tests: http:// and private targets allowed. */
  allowPrivate: boolean;
}

/** Sends deliveries over kept-alive connections, one agent per scheme. */
export class WebhookClient {
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent: http.Agent | undefined;
  private readonly inFlight = new Set<http.ClientRequest>();

  constructor(private readonly options: WebhookClientOptions) {
    const lookup = options.allowPrivate ? undefined : guardedLookup;
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16, ...(lookup ? { lookup } : {}) });
    this.httpAgent = options.allowPrivate ? new http.Agent({ keepAlive: true, maxSockets: 16 }) : undefined;
  }

  send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refused = (error: string): Promise<WebhookResponse> =>
      Promise.resolve({ statusCode: null, latencyMs: elapsed(), error, response: null });
    const problem = webhookUrlProblem(request.url, this.options.allowPrivate);
    if (problem) return refused(problem);
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const client = secure ? https : http;
    const agent = secure ? this.httpsAgent : this.httpAgent;
    return new Promise((resolvePromise) => {
      let settled = false;
      const finish = (result: Omit<WebhookResponse, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(req);
        resolvePromise({ ...result, latencyMs: elapsed() });
      };
      const req = client.request(url, {
        method: 'POST',
        agent,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(request.body),
          'user-agent': 'menu-api-webhooks/1',
        },
      });
      this.inFlight.add(req);
      const timer = setTimeout(() => {
        req.destroy(new Error(`no answer within ${request.timeoutMs} ms`));
      }, request.timeoutMs);
      req.on('error', (error) => finish({ statusCode: null, error: error.message, response: null }));
      req.on('response', (res) => {
        const statusCode = res.statusCode ?? null;
        const parts: Buffer[] = [];
        let kept = 0;
        const done = () => {
          finish({
            statusCode,
            error: null,
            response: Buffer.concat(parts).toString('utf8'),
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (kept >= RESPONSE_KEPT) return;
          const part = chunk.subarray(0, RESPONSE_KEPT - kept);
          parts.push(part);
          kept += part.length;
          if (kept >= RESPONSE_KEPT) {
            // Enough: the rest is not read, and the connection is not reused.
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      });
      req.end(request.body);
    });
  }

  /** Ends every delivery in flight and the kept-alive connections. */
  close(): void {
    for (const req of this.inFlight) req.destroy(new Error('the server is stopping'));
    this.httpsAgent.destroy();
    this.httpAgent?.destroy();
  }
}
