/** Raised for a write that would break a uniqueness rule (a username that exists, say). */
export class ConflictError extends Error {}

/** Raised when stock updates name price entries that do not exist; nothing was written. */
export class UnmatchedStockError extends Error {
  constructor(readonly unmatched: number[]) {
    super(
      `${unmatched.length} ${unmatched.length === 1 ? 'stock update matches' : 'stock updates match'} no price entry`,
    );
  }
}
