import type { IncomingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../http/pipeline/json-depth.js';
import { ServiceError } from '../../services/errors.js';
import type { RequestCredentials } from '../form.js';

/** The longest secret the body schema accepts (its maxLength, in characters). */
const LONGEST_SECRET = 256;

const Secret = (description: string) => Type.String({ maxLength: LONGEST_SECRET, description });

/** Form A's credentials and dispensary token: required fields of every request body. */
export const formACredentials = {
  username: Secret('API credential issued by the operator.'),
  password: Secret('API credential issued by the operator.'),
  collective_token: Secret('Token obtained from the dispensary.'),
};

export interface FormACredentials {
  username: string;
  password: string;
  collective_token: string;
}

/** Content types Form A accepts besides JSON: what `curl -d` and HTML forms send, or nothing at all. */
const LENIENT_TYPES = new Set(['', 'text/plain', 'application/x-www-form-urlencoded']);

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isAcceptedContentType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || LENIENT_TYPES.has(type);
}

/** A JSON body, parsed; the answer to a body that is not JSON says what to send. */
export function parseFormAJson(text: string): unknown {
  // The same nesting limit as every other JSON body (src/http/pipeline/json-depth.ts): Form A parses its own.
  if (text.length > MAX_JSON_DEPTH && nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ServiceError(
      'invalid_request',
      `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep. Send a JSON object such as {"username": "...", "password": "...", "collective_token": "..."}.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError(
      'invalid_request',
      'The request body is not valid JSON. Send a JSON object such as {"username": "...", "password": "...", "collective_token": "..."}.',
    );
  }
}

/**
 * Reads a Form A body. JSON is accepted under any accepted content type, because `curl -d '{...}'`
 * labels JSON as a form; a real urlencoded form (`username=...&password=...`) is read as fields.
 */
export function parseFormABody(contentType: string | undefined, text: string): unknown {
  const type = mediaType(contentType);
  if (type === 'application/json') return parseFormAJson(text);
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return parseFormAJson(text);
  if (type === 'application/x-www-form-urlencoded') return parseUrlEncoded(trimmed);
  if (trimmed === '') return undefined;
  if (type === 'text/plain' && /^[^\s=&]+=[^\s&]*(&[^\s=&]+=[^\s&]*)*$/.test(trimmed)) {
    throw new ServiceError(
      'invalid_request',
      'This text/plain body is a urlencoded form. Send it with Content-Type: application/x-www-form-urlencoded, or send the fields as a JSON object.',
    );
  }
  throw new ServiceError(
    'invalid_request',
    'The request body is neither a JSON object nor a urlencoded form. Send a JSON object such as {"username": "...", "password": "...", "collective_token": "..."}.',
  );
}

function parseUrlEncoded(text: string): Record<string, unknown> {
  // No prototype: a field named constructor, toString or __proto__ is a field like any other.
  const fields: Record<string, unknown> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in fields) {
      throw new ServiceError(
        'invalid_request',
        `The form field "${name}" was sent more than once; send it once.`,
      );
    }
    // A form carries only text: "true" and "false" are the booleans a form can express.
    fields[name] = name === 'active' && (value === 'true' || value === 'false') ? value === 'true' : value;
  }
  return fields;
}

/** The largest body the read lane reads before deciding (src/http/pipeline/read-lane.ts): a plain one is ~150 bytes. */
const LARGEST_PLAIN_BODY = 4096;

/**
 * Whether a request's headers announce a plain JSON body (the read lane's first test): JSON by its
 * exact media type, with a length, small, and within the route's `bodyLimit` (a larger body is the
 * route's to refuse with 413).
 */
export function announcesPlainFormABody(
  headers: Pick<IncomingHttpHeaders, 'content-type' | 'content-length' | 'transfer-encoding'>,
  bodyLimit: number,
): boolean {
  const type = headers['content-type'];
  const length = headers['content-length'];
  return (
    (type === 'application/json' || type === 'application/json; charset=utf-8') &&
    length !== undefined &&
    Number(length) <= Math.min(LARGEST_PLAIN_BODY, bodyLimit) &&
    headers['transfer-encoding'] === undefined
  );
}

/** The fields of a plain body: the credentials, the token and `active`, nothing else. */
const PLAIN_FIELDS = new Set(['username', 'password', 'collective_token', 'active']);

const isSecret = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= LONGEST_SECRET;

/**
 * The credentials and `active` of a menu body the route's checks would certainly pass (the read
 * lane's second test): a JSON object of the credentials and token, each a string of at most
 * LONGEST_SECRET characters, and `active` as a boolean or absent. Anything else is undefined, and
 * left to the route, whose checks say what is wrong.
 */
export function plainFormABody(
  text: string,
): { credentials: RequestCredentials; active: boolean } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  for (const name in body) if (!PLAIN_FIELDS.has(name)) return undefined;
  const { username, password, collective_token: token, active } = body as Record<string, unknown>;
  if (!isSecret(username) || !isSecret(password) || !isSecret(token)) return undefined;
  if (active !== undefined && typeof active !== 'boolean') return undefined;
  return { credentials: { username, password, token }, active: active !== false };
}
