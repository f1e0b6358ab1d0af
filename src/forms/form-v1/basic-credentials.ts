import { ServiceError } from '../../services/errors.js';
import type { RequestCredentials } from '../form.js';

/** A Basic Authorization header's value: the scheme, case-insensitive, then base64 (RFC 7617). */
const BASIC = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
/** A byte outside ASCII in atob's text (one character a byte): the pair is UTF-8, which that text is not. */
const NOT_ASCII = /[\x80-\xff]/;
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Each ASCII code's value in base64, -1 for a character outside the alphabet. */
const BASE64_VALUES = Int8Array.from({ length: 128 }, (_, code) =>
  BASE64_ALPHABET.indexOf(String.fromCharCode(code)),
);
/** The base64 value of `text`'s character at `at`, -1 when it is outside the alphabet. */
function base64Value(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code < 128 ? BASE64_VALUES[code]! : -1;
}
/** The scheme in lower case; every client sends one SPACE after it. */
const SCHEME = 'basic';
const SPACE = 0x20;
const EQUALS = 0x3d;
const COLON = 0x3a;

/** Bytes of a decoded pair the common path holds; a longer pair (longer than any the route accepts) takes the general path. */
const decoded = Buffer.alloc(1024);

/**
 * The pair of the header every client sends (`Basic `, any case, one space, base64 with at most two
 * `=` of an ASCII pair), decoded here in one pass into `decoded`, zeroed again once read; undefined for
 * anything else (more spaces, text beyond ASCII, a stray character, no colon), which basicPair's
 * general path reads.
 * Written by hand because on an Intel host a v1 read spent about 2 µs more than Form B's in the
 * regular expression, atob and its check, for their few hundred instructions: code no other request
 * runs, cold on every read (bench/PROFILE.md, round thirty-four).
 */
function plainBasicPair(header: string): { username: string; password: string } | undefined {
  const start = SCHEME.length + 1;
  if (header.length <= start || header.charCodeAt(SCHEME.length) !== SPACE) return undefined;
  for (let at = 0; at < SCHEME.length; at++) {
    // `| 0x20` lowers an ASCII letter (and takes nothing else for one).
    if ((header.charCodeAt(at) | 0x20) !== SCHEME.charCodeAt(at)) return undefined;
  }
  let end = header.length;
  if (header.charCodeAt(end - 1) === EQUALS) end--;
  if (header.charCodeAt(end - 1) === EQUALS) end--;
  if (end === start || ((end - start) * 3) >> 2 > decoded.length) return undefined;
  // Four characters make three bytes; `stray` turns negative with a character outside the alphabet,
  // `high` holds a byte's top bit when one is not ASCII.
  let stray = 0;
  let high = 0;
  let length = 0;
  let at = start;
  for (; at + 4 <= end; at += 4) {
    const a = base64Value(header, at);
    const b = base64Value(header, at + 1);
    const c = base64Value(header, at + 2);
    const d = base64Value(header, at + 3);
    stray |= a | b | c | d;
    const bits = (a << 18) | (b << 12) | (c << 6) | d;
    high |= bits;
    decoded[length++] = bits >> 16;
    decoded[length++] = bits >> 8;
    decoded[length++] = bits;
  }
  // The last two or three characters make one or two bytes (the bits past them are dropped, as
  // Buffer drops them); a last character alone makes none.
  const left = end - at;
  if (left > 0) {
    const a = base64Value(header, at);
    const b = left > 1 ? base64Value(header, at + 1) : 0;
    const c = left > 2 ? base64Value(header, at + 2) : 0;
    stray |= a | b | c;
    const bits = (a << 18) | (b << 12) | (c << 6);
    if (left > 1) {
      high |= bits & 0x800000;
      decoded[length++] = bits >> 16;
    }
    if (left > 2) {
      high |= bits & 0x8000;
      decoded[length++] = bits >> 8;
    }
  }
  let colon = -1;
  for (let index = 0; index < length && colon < 0; index++) if (decoded[index] === COLON) colon = index;
  const pair =
    stray >= 0 && (high & 0x808080) === 0 && colon >= 0
      ? {
          username: decoded.toString('latin1', 0, colon),
          password: decoded.toString('latin1', colon + 1, length),
        }
      : undefined;
  decoded.fill(0, 0, length);
  return pair;
}

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
  const plain = plainBasicPair(header);
  if (plain !== undefined) return plain;
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

/**
 * A request's HTTP Basic credentials and its dispensary token. The pair is decoded when first read,
 * which the access check does only when it has no answer remembered for the header's text (`sentAs`)
 * or the login guard has a failure counted: a repeated read is granted without decoding it. A
 * malformed header is refused (400) when the pair is read, before the access check decides anything
 * else.
 */
export class BasicCredentials implements RequestCredentials {
  private pair: { username: string; password: string } | undefined;

  constructor(
    /** The Authorization header's value. */
    readonly sentAs: string,
    readonly token: string,
  ) {}

  get username(): string {
    return this.decoded().username;
  }

  get password(): string {
    return this.decoded().password;
  }

  private decoded(): { username: string; password: string } {
    this.pair ??= basicCredentials(this.sentAs);
    return this.pair;
  }
}
