/**
 * A list field's entries before each is checked: none when it is absent or null, or undefined (with the
 * problem at `field`) when it is not an array of at most `maxItems`; `entries` says what an entry is.
 */
export function listEntries(
  value: unknown,
  field: string,
  maxItems: number,
  entries: string,
  problems: { field: string; message: string }[],
): unknown[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push({ field, message: `must be an array of ${entries}` });
    return undefined;
  }
  if (value.length > maxItems) {
    problems.push({ field, message: `must have at most ${maxItems} entries` });
    return undefined;
  }
  return value;
}
