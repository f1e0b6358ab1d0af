import { Type } from 'typebox';
import { INTEGER_TEXT, type IntegerRange } from '../openapi/document-notes.js';

/** The shapes every resource of the sync API shares (errors are the app's ErrorBody, src/http/pipeline/errors.ts). */

/** A positive id in a path or query string: digits, no leading zero, as Number() reads it exactly. */
export const ID_PATTERN = '^[1-9][0-9]{0,9}$';

/**
 * A whole number in a path or query string. The server never coerces types, so it checks the text
 * (`pattern`: the digits of a number in `range`, nothing else); the document says what the text
 * holds, an integer in `range`, so that clients send a number (see src/http/routes/openapi/document-notes.ts).
 */
export function IntegerText(pattern: string, range: IntegerRange, options: { description: string }) {
  return Type.String({ pattern, ...options, [INTEGER_TEXT]: range });
}

/** An id of the path or query string: 1 to the largest ID_PATTERN allows. */
export const IdText = (description: string) =>
  IntegerText(ID_PATTERN, { minimum: 1, maximum: 9_999_999_999 }, { description });

/** The dispensary of the path (`:id`). */
export const DispensaryId = IdText('Dispensary id');

export const IdParams = Type.Object({ id: DispensaryId });
