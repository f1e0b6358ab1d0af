/**
 * The body of a `/v1/menu` page, `{"data":[…],"next_cursor":…,"total":…,"facets":…}`, as bytes: each
 * item's JSON bytes copied one after another into one buffer of the size they add up to; and the
 * page's entity tag, from its items' tags. Joining a hundred items of about 1 KB into one text and
 * encoding that text again cost more than finding, ranking and paging a search's items (bench/PROFILE.md,
 * round sixteen); encoding each item's text into the buffer and hashing the whole page for its tag
 * then cost 86 µs of the 200 a search spent beside its compression (bench/PROFILE.md,
 * round twenty-seven): the bytes are now copied, and the tag made from the items' tags.
 */
import { taggedIdentity, tagOf } from '../../services/snapshots/codings.js';
import type { Representation } from '../../services/snapshots/types.js';

/** An item's JSON as a page copies it: its UTF-8 bytes. */
export interface ItemJson {
  readonly bytes: Buffer;
}

/** An item's JSON bytes with their entity tag (tagOf), which a page's tag is made from. */
export interface TaggedJson extends ItemJson {
  readonly tag: string;
}

/**
 * The JSON text of an item of the query index (a Row's), its bytes and tag made the first time a page
 * or the item's own answer asks for them, then kept (and the text dropped). Made for every row of a
 * menu at once, they cost the index's cold build a third more (round twenty-seven), for items most
 * of which no page may ever hold.
 */
export class KeptJson implements TaggedJson {
  private text: string | undefined;
  private madeBytes: Buffer | undefined;
  private madeTag: string | undefined;

  constructor(text: string) {
    this.text = text;
  }

  get bytes(): Buffer {
    if (this.madeBytes === undefined) {
      this.madeBytes = Buffer.from(this.text!);
      this.text = undefined;
    }
    return this.madeBytes;
  }

  get tag(): string {
    this.madeTag ??= tagOf(this.bytes);
    return this.madeTag;
  }
}

const HEAD = '{"data":[';
const COMMA = 0x2c;

/** What follows a page's list in its body (pageBody's `rest`): from its `]` to the final `}`. */
export function pageRest({
  next,
  total,
  facets,
}: {
  next: string | null;
  total: number;
  facets: unknown;
}): string {
  return `],"next_cursor":${JSON.stringify(next)},"total":${total},"facets":${JSON.stringify(facets)}}`;
}

/** The body of `items` followed by `rest` (pageRest). */
export function pageBody(items: readonly ItemJson[], rest: string): Buffer {
  let size = HEAD.length + Math.max(items.length - 1, 0) + Buffer.byteLength(rest);
  for (const item of items) size += item.bytes.length;
  const body = Buffer.allocUnsafe(size);
  let at = body.write(HEAD, 0);
  for (let index = 0; index < items.length; index++) {
    if (index > 0) body[at++] = COMMA;
    const { bytes } = items[index]!;
    body.set(bytes, at);
    at += bytes.length;
  }
  body.write(rest, at);
  return body;
}

/**
 * The entity tag of pageBody(items, rest) when each item carries its JSON's tag (a Row does): the hash
 * of those tags and `rest`, which decide every byte of the body (the tags are of one length, so they
 * also say how many items there are), instead of the hash of the whole body, 30 times longer.
 */
export function pageTag(items: readonly TaggedJson[], rest: string): string {
  let text = '';
  for (const item of items) text += item.tag;
  return tagOf(text + rest);
}

/** A page of whole items as an answer: its body (pageBody) and the tag made from its items' tags (pageTag). */
export function taggedPage(
  items: readonly TaggedJson[],
  rest: string,
  cursor: number | undefined,
): Representation {
  return taggedIdentity(pageBody(items, rest), pageTag(items, rest), cursor);
}

/** A JSON text made for one answer (a sparse fieldset's item), as bytes. */
export function itemJson(json: string): ItemJson {
  return { bytes: Buffer.from(json) };
}
