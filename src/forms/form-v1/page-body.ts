/**
 * The body of a `/v1/menu` page, `{"data":[…],"next_cursor":…,"total":…,"facets":…}`, as bytes: each
 * item's JSON written straight into one buffer of the size their byte lengths add up to. Joining a
 * hundred items of about 1 KB into one text and encoding that text again cost more than finding,
 * ranking and paging a search's items (bench/PROFILE.md, round sixteen).
 */

/** An item's JSON and its length in UTF-8 bytes (a Row keeps both). */
export interface ItemJson {
  json: string;
  jsonBytes: number;
}

const HEAD = '{"data":[';

/** The body of `items` followed by `rest`: what comes after the list, from its `]` to the final `}`. */
export function pageBody(items: readonly ItemJson[], rest: string): Buffer {
  let size = HEAD.length + Math.max(items.length - 1, 0) + Buffer.byteLength(rest);
  for (const item of items) size += item.jsonBytes;
  const body = Buffer.allocUnsafe(size);
  let at = body.write(HEAD, 0);
  for (let index = 0; index < items.length; index++) {
    if (index > 0) at += body.write(',', at);
    at += body.write(items[index]!.json, at);
  }
  body.write(rest, at);
  return body;
}

/** A JSON text made for one answer (a sparse fieldset's item), with its byte length. */
export function itemJson(json: string): ItemJson {
  return { json, jsonBytes: Buffer.byteLength(json) };
}
