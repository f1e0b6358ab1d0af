import { describe, expectTypeOf, it } from 'vitest';
import type { ApiErrorCode } from '../../src/client/types.js';
import type { ErrorCode } from '../../src/services/errors.js';

/**
 * The client ships alone, so it does not import the services: both take the error codes from one leaf
 * (src/domain/error-codes.ts). Checked by the type checker (`tsc -p tsconfig.check.json`), which
 * fails when either side lists codes of its own.
 */
describe('the error codes', () => {
  it('are the same for the client and the services', () => {
    expectTypeOf<ApiErrorCode>().toEqualTypeOf<ErrorCode>();
  });
});
