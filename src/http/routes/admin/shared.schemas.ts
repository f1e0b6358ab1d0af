import { Type } from 'typebox';

/** The shapes every resource of the sync API shares (errors are the app's ErrorBody, src/http/pipeline/errors.ts). */

/** A positive id in a path or query string: digits, no leading zero, as Number() reads it exactly. */
export const ID_PATTERN = '^[1-9][0-9]{0,9}$';

/** The dispensary of the path (`:id`). */
export const DispensaryId = Type.String({
  pattern: ID_PATTERN,
  description: 'Dispensary id',
  examples: ['1'],
});

export const IdParams = Type.Object({ id: DispensaryId });
