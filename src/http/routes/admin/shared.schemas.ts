import { Type } from 'typebox';
import { IntegerText } from '../../pipeline/document-notes.js';

/** The shapes every resource of the sync API shares (errors are the app's ErrorBody, src/http/pipeline/errors.ts). */

/** A positive id in a path or query string: digits, no leading zero, as Number() reads it exactly. */
export const ID_PATTERN = '^[1-9][0-9]{0,9}$';

/** An id of the path or query string: 1 to the largest ID_PATTERN allows. */
export const IdText = (description: string) =>
  IntegerText(ID_PATTERN, { minimum: 1, maximum: 9_999_999_999 }, { description });

/**
 * An optional count of the query string (how many, how many days): 1 to `maximum`, digits that
 * `pattern` holds to that range.
 */
export const OptionalCount = (pattern: string, maximum: number, description: string) =>
  Type.Optional(IntegerText(pattern, { minimum: 1, maximum }, { description }));

/** The dispensary of the path (`:id`). */
export const DispensaryId = IdText('Dispensary id');

export const IdParams = Type.Object({ id: DispensaryId });

/** An answer that says how many sessions of the account a change ended (`description` says which). */
export const EndedSessionsOut = (title: string, description: string, example: number) =>
  Type.Object(
    { ended_sessions: Type.Integer({ description }) },
    { additionalProperties: false, title, examples: [{ ended_sessions: example }] },
  );
