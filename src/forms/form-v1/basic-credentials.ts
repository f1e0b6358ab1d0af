import { ServiceError } from '../../services/errors.js';

/** A Basic Authorization header's value: the scheme, case-insensitive, then base64 (RFC 7617). */
const BASIC = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
/** A byte outside ASCII in atob's text (one character a byte): the pair is UTF-8, which that text is not. */
const NOT_ASCII = /[\x80-\xff]/;

/**
 * The text of a Basic header's base64: UTF-8 (RFC 7617's charset), as Buffer decodes it, lenient
 * padding included. `atob` goes first, being about a third cheaper than a Buffer on a read's short
 * pair (bench/PROFILE.md, round twenty-two); its Latin-1 text is the UTF-8 text only when every byte
 * is ASCII, and it refuses padding Buffer takes (`QQ=`), so anything else is decoded by Buffer.
 */
function decodedPair(base64: string): string {
  let text: string;
  try {
    text = atob(base64);
  } catch {
    return Buffer.from(base64, 'base64').toString('utf8');
  }
  return NOT_ASCII.test(text) ? Buffer.from(base64, 'base64').toString('utf8') : text;
}

/** The username and password of a Basic Authorization header (RFC 7617), or undefined when malformed. */
export function basicPair(header: string): { username: string; password: string } | undefined {
  const match = BASIC.exec(header);
  if (!match) return undefined;
  const pair = decodedPair(match[1]!);
  const colon = pair.indexOf(':');
  if (colon < 0) return undefined;
  return { username: pair.slice(0, colon), password: pair.slice(colon + 1) };
}

const malformed = () =>
  new ServiceError(
    'invalid_request',
    'The Authorization header is not HTTP Basic credentials. Send Authorization: Basic base64(username:password), as curl -u username:password does.',
    [{ field: 'authorization', message: 'is not Basic credentials' }],
  );

/** The username and password of a Basic Authorization header (RFC 7617); a malformed one is 400. */
export function basicCredentials(header: string): { username: string; password: string } {
  const pair = basicPair(header);
  if (pair === undefined) throw malformed();
  return pair;
}
