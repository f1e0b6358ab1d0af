import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key under which a client address is counted: an IPv4 address as it is (also when written as
 * IPv4-mapped IPv6), an IPv6 address by its /64 network, since one subscriber usually holds a whole
 * /64 and could otherwise step around every per-address limit.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = ip.includes('::') ? 8 - left.length - right.length : 0;
  const groups = [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right];
  const network = groups.slice(0, 4).map((group) => Number.parseInt(group || '0', 16).toString(16));
  return `${network.join(':')}::/64`;
}
