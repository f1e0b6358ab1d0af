/**
 * How deeply a JSON body may nest. The deepest real body is a menu (array, item, prices, price: 4)
 * or store hours (3); thousands of levels only serve to exhaust the stack of whatever walks the value
 * next (a serializer, a validator, an idempotency fingerprint), which would be a 500.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether the JSON text opens more than `max` arrays or objects inside each other. O(n), no parsing. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      // A backslash escapes the next character; a quote ends the string.
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}
