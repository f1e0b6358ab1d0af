/**
 * What a database address says without opening it. Kept apart from the dialect folders so that a
 * command can name or describe its database without loading a driver it will not use.
 */

export function isPostgresUrl(address: string): boolean {
  return /^postgres(ql)?:\/\//i.test(address);
}

/** The address without its password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable address)';
  }
}
