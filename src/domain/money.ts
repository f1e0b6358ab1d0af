/** Prices travel as JSON numbers with at most two decimals and are stored as integer cents. */

export const MAX_PRICE_CENTS = 100_000_000_00;

/** Returns integer cents, or null when the value is not a price with at most two decimals. */
export function toCents(value: number): number | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const cents = Math.round(value * 100);
  // Accept binary float noise (35.99 * 100 = 3598.9999999999995) but not a third decimal.
  if (Math.abs(value * 100 - cents) > 1e-6) return null;
  if (cents > MAX_PRICE_CENTS) return null;
  return cents;
}

export function fromCents(cents: number): number {
  return cents / 100;
}
