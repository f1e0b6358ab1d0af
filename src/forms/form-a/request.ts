import { type Static, Type } from 'typebox';
import { ServiceError } from '../../services/errors.js';

const Secret = (description: string) => Type.String({ maxLength: 256, description });

export const FormARequestBody = Type.Object(
  {
    username: Secret('API credential issued by the operator.'),
    password: Secret('API credential issued by the operator.'),
    collective_token: Secret('Token obtained from the dispensary.'),
    active: Type.Optional(
      Type.Boolean({
        description:
          'Default true: only active items. false: every item, active and inactive, each with its flag.',
      }),
    ),
  },
  { additionalProperties: true },
);
export type FormARequestBody = Static<typeof FormARequestBody>;

/** Content types Form A accepts besides JSON: what `curl -d` and HTML forms send, or nothing at all. */
const LENIENT_TYPES = new Set(['', 'text/plain', 'application/x-www-form-urlencoded']);

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isAcceptedContentType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || LENIENT_TYPES.has(type);
}

/**
 * Reads a Form A body. JSON is accepted under any accepted content type, because `curl -d '{...}'`
 * labels JSON as a form; a real urlencoded form (`username=...&password=...`) is read as fields.
 */
export function parseFormABody(contentType: string | undefined, text: string): unknown {
  const type = mediaType(contentType);
  const trimmed = text.trim();
  if (type === 'application/json' || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch {
      throw new ServiceError(
        'invalid_request',
        'The request body is not valid JSON. Send a JSON object such as {"username": "...", "password": "...", "collective_token": "..."}.',
      );
    }
  }
  if (type === 'application/x-www-form-urlencoded') return parseUrlEncoded(trimmed);
  if (trimmed === '') return undefined;
  throw new ServiceError('invalid_request', 'The request body must be a JSON object or a urlencoded form.');
}

function parseUrlEncoded(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
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
