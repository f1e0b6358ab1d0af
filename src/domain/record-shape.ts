/**
 * Makes empty records of a fixed list of keys, in that order, each key present (null) until set.
 *
 * A record built key by key (`record[key] = value`) past about sixteen keys is turned by V8 into a
 * dictionary: slower to read and write, and larger. Menu items have more fields than that since the
 * rich item, and a sync builds, compares and reads back thousands of them (bench/writes.ts). A copy of
 * a template parsed from JSON keeps the template's fast layout, and every copy shares it.
 */
export function recordShape(keys: readonly string[]): () => Record<string, unknown> {
  const template = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((key) => [key, null])))) as Record<
    string,
    unknown
  >;
  return () => ({ ...template });
}
