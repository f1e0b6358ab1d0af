import { Type } from 'typebox';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../http/json-depth.js';
import { ServiceError } from '../../services/errors.js';

const Secret = (description: string) => Type.String({ maxLength: 256, description });

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
  // The same nesting limit as every other JSON body (src/http/json-depth.ts): Form A parses its own.
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
