import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, gunzip } from 'node:zlib';
import { crc32Combine } from './crc32.js';

/** One listed item: its id and its serialized JSON (one or more array elements, joined by commas). */
export interface ListedItem {
  id: number;
  text: string;
}

/**
 * Where segments end: after an item whose id hashes to a multiple of TARGET (at least MIN items in),
 * or at MAX items. A function of the ordered ids alone, so a list patched many times is cut exactly as
 * a list built from scratch: the same segments, the same compressed bytes, the same ETag, in every
 * process. Items are about 300-700 bytes of JSON, so a segment is about 20-40 KB.
 */
export const SEGMENT_TARGET = 64;
const SEGMENT_MIN = 16;
const SEGMENT_MAX = 256;

function cutsAfter(id: number): boolean {
  let h = Math.imul(id ^ (id >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return ((h ^ (h >>> 16)) >>> 0) % SEGMENT_TARGET === 0;
}

/** The end (exclusive index) of each segment of an ordered id list; an empty list is one empty segment. */
export function segmentEnds(ids: readonly number[]): number[] {
  const ends: number[] = [];
  let count = 0;
  for (let index = 0; index < ids.length; index++) {
    count++;
    if (count >= SEGMENT_MAX || (count >= SEGMENT_MIN && cutsAfter(ids[index]!))) {
      ends.push(index + 1);
      count = 0;
    }
  }
  if (count > 0 || ends.length === 0) ends.push(ids.length);
  return ends;
}

/**
 * One segment. A class, so that every segment has the same hidden class: segments made by spreading
 * a plain object, whose `raw` later became undefined, each got a map of their own (a map, descriptors
 * and properties, about 0.5 KB a segment), and with ids in a JS array that made each cached list
 * about 13 KB of V8 heap, which V8 grows to a few times what is live (issue 13: the 2,000-menu scale
 * run). The ids and lengths share one typed buffer, off the V8 heap; the digest is a short string.
 */
class Segment {
  constructor(
    readonly ids: Float64Array,
    /** Byte length of each item's text in the segment's bytes. */
    readonly lengths: Uint32Array,
    /** The first segment opens the array (`[`), the others start with a comma; the last closes it. */
    readonly first: boolean,
    readonly last: boolean,
    /** The segment's identity bytes, while kept (`dropIdentity` lets them go; `patch` inflates them again). */
    public raw: Buffer | undefined,
    readonly rawLength: number,
    readonly crc: number,
    /** SHA-256 of the identity bytes, as a binary (latin1) string: one character a byte. */
    readonly digest: string,
    /**
     * The segment's bytes as raw deflate blocks that end in a full flush (byte-aligned, no final
     * block), compressed with the 32 KiB before it as the dictionary: in the one stream the decoder
     * has those bytes in its window, so the segments together compress about as well as one stream,
     * and a segment must be compressed again only when what precedes it within 32 KiB changed.
     * After assembly, a view into the gzip body, so the bytes are kept once.
     */
    public deflated: Buffer,
  ) {}
}

const deflateRawAsync = promisify(deflateRaw);

/** Whether an item's bytes in a segment are `text` (UTF-8), without encoding it. */
const sameText = (bytes: Buffer, text: string): boolean =>
  bytes.length === Buffer.byteLength(text) && bytes.toString() === text;
const gunzipAsync = promisify(gunzip);

/** Gzip member header: deflate, no name, no time, Unix (what Node's gzip writes). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);
/** An empty final block (fixed Huffman, end of block only): closes a stream of flushed segments. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');
/** Deflate's window: how far back a segment's compression may look into the segments before it. */
const WINDOW = 32 * 1024;
/** What a segment's metadata costs beyond its bytes, counted in `size`. */
const SEGMENT_OVERHEAD = 200;

/**
 * A JSON array answer kept in segments of items, compressed as pigz does (deflate blocks ending in
 * a full flush, each primed with the 32 KiB before it), so that a change to a few items
 * re-serializes only them and recompresses only their segments and the one after: the gzip body is
 * the header, every segment's deflate bytes, an empty final block, and a trailer whose CRC-32 is
 * combined from the segments' (crc32Combine), not computed over the whole answer again.
 *
 * Immutable apart from the identity bytes it may let go: `patch` returns a new list that shares the
 * unchanged segments.
 */
export class SegmentedList {
  private constructor(
    private readonly segments: readonly Segment[],
    /** The whole answer, gzip. */
    readonly gzip: Buffer,
    /** The identity hash (a hash of the segments' hashes; the same segments give the same tag). */
    readonly tag: string,
    /** Length of the identity bytes. */
    readonly length: number,
    /** Bytes this list keeps besides the identity bytes: the gzip body and each segment's metadata. */
    readonly size: number,
  ) {}

  /** A list from items ordered by id (unique ids). */
  static async build(items: readonly ListedItem[], level: number): Promise<SegmentedList> {
    const ids = items.map((item) => item.id);
    const ends = segmentEnds(ids);
    let start = 0;
    const parts = ends.map((end, index) => {
      const segmentItems = items.slice(start, end);
      start = end;
      return rawSegment(
        segmentItems.map((item) => item.id),
        segmentItems.map((item) => item.text),
        index === 0,
        index === ends.length - 1,
      );
    });
    const segments = await Promise.all(
      parts.map((part, index) => compressSegment(part, dictionaryBefore(parts, index), level)),
    );
    return SegmentedList.assemble(segments);
  }

  /** The ids listed, in order. */
  get ids(): number[] {
    const ids: number[] = [];
    for (const segment of this.segments) ids.push(...segment.ids);
    return ids;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /** Identity bytes kept (0 after `dropIdentity`). */
  get identityBytes(): number {
    let bytes = 0;
    for (const segment of this.segments) bytes += segment.raw?.length ?? 0;
    return bytes;
  }

  /** Lets the identity bytes go (they are inflated again when needed): memory for a slower patch. */
  dropIdentity(): void {
    for (const segment of this.segments) segment.raw = undefined;
  }

  /**
   * The list after the changes `named`: for each id, its new text, or undefined for an item no longer
   * listed (an item named with its text unchanged is no change; none changed: this list).
   * Only segments whose items (or place: first, last) changed are rebuilt, and those whose preceding
   * 32 KiB changed are recompressed; an item that did not change is taken from its old segment's
   * bytes, not serialized again.
   */
  async patch(named: ReadonlyMap<number, string | undefined>, level: number): Promise<SegmentedList> {
    if (named.size === 0) return this;
    await this.keepIdentity();
    const where = new Map<number, Segment>();
    const byFirst = new Map<number, Segment>();
    const before = new Map<Segment, Segment | undefined>();
    let previous: Segment | undefined;
    for (const segment of this.segments) {
      for (const id of segment.ids) where.set(id, segment);
      if (segment.ids.length > 0) byFirst.set(segment.ids[0]!, segment);
      before.set(segment, previous);
      previous = segment;
    }
    const oldText = (id: number): Buffer => {
      const segment = where.get(id)!;
      const index = segment.ids.indexOf(id);
      let at = 1; // after `[` or the comma
      for (let item = 0; item < index; item++) at += segment.lengths[item]! + 1;
      return segment.raw!.subarray(at, at + segment.lengths[index]!);
    };
    // An item named with the text it already has is no change: a special's boundary names a thousand
    // items whose answer here is the same (it shows no effective price), and rebuilding their segments
    // recompressed nearly the whole list.
    const changes = new Map<number, string | undefined>();
    for (const [id, text] of named) {
      if (text !== undefined && where.has(id) && sameText(oldText(id), text)) continue;
      changes.set(id, text);
    }
    if (changes.size === 0) return this;
    const inserted: number[] = [];
    const removed = new Set<number>();
    for (const [id, text] of changes) {
      if (text === undefined) removed.add(id);
      else if (!where.has(id)) inserted.push(id);
    }
    inserted.sort((a, b) => a - b);
    const ids: number[] = [];
    let next = 0;
    for (const segment of this.segments) {
      for (const id of segment.ids) {
        while (next < inserted.length && inserted[next]! < id) ids.push(inserted[next++]!);
        if (!removed.has(id)) ids.push(id);
      }
    }
    while (next < inserted.length) ids.push(inserted[next++]!);

    const ends = segmentEnds(ids);
    let start = 0;
    /** Each new segment: an old one kept as it is, or the bytes of a new one. */
    const parts = ends.map((end, index): Segment | RawSegment => {
      const segmentIds = ids.slice(start, end);
      start = end;
      const first = index === 0;
      const last = index === ends.length - 1;
      const old = segmentIds.length > 0 ? byFirst.get(segmentIds[0]!) : undefined;
      if (
        old &&
        old.first === first &&
        old.last === last &&
        old.ids.length === segmentIds.length &&
        segmentIds.every((id, at) => old.ids[at] === id && !changes.has(id))
      ) {
        return old;
      }
      const texts = segmentIds.map((id) => {
        const text = changes.get(id);
        return text === undefined ? oldText(id) : text;
      });
      return rawSegment(segmentIds, texts, first, last);
    });
    const segments = await Promise.all(
      parts.map((part, index) => {
        if (!('deflated' in part)) return compressSegment(part, dictionaryBefore(parts, index), level);
        // An old segment keeps its deflate bytes if the 32 KiB before it are the same segments as before.
        let reach = 0;
        let expected = before.get(part);
        for (let back = index - 1; back >= 0 && reach < WINDOW; back--) {
          const preceding = parts[back]!;
          if (preceding !== expected) return compressSegment(part, dictionaryBefore(parts, index), level);
          reach += preceding.rawLength;
          expected = before.get(preceding as Segment);
        }
        // Fewer than 32 KiB before it, and there used to be more: its dictionary changed too.
        if (reach < WINDOW && expected !== undefined) {
          return compressSegment(part, dictionaryBefore(parts, index), level);
        }
        return part;
      }),
    );
    return SegmentedList.assemble(segments);
  }

  /** The identity bytes, in order (inflated from the gzip body if they were let go). */
  async identity(): Promise<Buffer> {
    await this.keepIdentity();
    return Buffer.concat(
      this.segments.map((segment) => segment.raw!),
      this.length,
    );
  }

  /** Makes sure every segment has its identity bytes, inflating the whole body once if any was let go. */
  private async keepIdentity(): Promise<void> {
    if (this.segments.every((segment) => segment.raw !== undefined)) return;
    const whole = await gunzipAsync(this.gzip);
    let at = 0;
    for (const segment of this.segments) {
      segment.raw = whole.subarray(at, at + segment.rawLength);
      at += segment.rawLength;
    }
  }

  private static assemble(segments: Segment[]): SegmentedList {
    let deflatedLength = 0;
    let length = 0;
    let crc = 0;
    let size = 0;
    const digests = createHash('sha256');
    for (const segment of segments) {
      deflatedLength += segment.deflated.length;
      length += segment.rawLength;
      crc = crc32Combine(crc, segment.crc, segment.rawLength);
      size += SEGMENT_OVERHEAD + segment.ids.length * 12;
      digests.update(segment.digest, 'binary');
    }
    const gzip = Buffer.allocUnsafe(GZIP_HEADER.length + deflatedLength + FINAL_BLOCK.length + 8);
    let at = GZIP_HEADER.copy(gzip, 0);
    for (const segment of segments) {
      const from = at;
      at += segment.deflated.copy(gzip, at);
      // Keep the bytes once: the segment now points into this body (the old body goes with the old list).
      segment.deflated = gzip.subarray(from, at);
    }
    at += FINAL_BLOCK.copy(gzip, at);
    gzip.writeUInt32LE(crc, at);
    gzip.writeUInt32LE(length % 2 ** 32, at + 4);
    const tag = digests.digest('base64url').slice(0, 32);
    return new SegmentedList(segments, gzip, tag, length, size + gzip.length);
  }
}

/** A segment's bytes and metadata, before compression. */
type RawSegment = Omit<Segment, 'deflated' | 'raw'> & { raw: Buffer };

/**
 * The texts are written straight into the segment's bytes: no buffer per item (500 small buffers per
 * list were garbage that V8 promoted while the segments were compressed in the pool, and its heap
 * grew with it).
 */
function rawSegment(
  ids: number[],
  texts: readonly (Buffer | string)[],
  first: boolean,
  last: boolean,
): RawSegment {
  // The ids (8 bytes each) and then the lengths (4 bytes each), in one buffer.
  const columns = new ArrayBuffer(ids.length * 12);
  const idColumn = new Float64Array(columns, 0, ids.length);
  idColumn.set(ids);
  const lengths = new Uint32Array(columns, ids.length * 8, ids.length);
  // `[` or a comma before the items, a comma between two, and `]` after the last segment's.
  let size = 1 + Math.max(0, texts.length - 1) + (last ? 1 : 0);
  texts.forEach((text, index) => {
    lengths[index] = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
    size += lengths[index]!;
  });
  const raw = Buffer.allocUnsafe(size);
  let at = (first ? OPEN : COMMA).copy(raw, 0);
  texts.forEach((text, index) => {
    if (index > 0) at += COMMA.copy(raw, at);
    at += typeof text === 'string' ? raw.write(text, at) : text.copy(raw, at);
  });
  if (last) CLOSE.copy(raw, at);
  return {
    ids: idColumn,
    lengths,
    first,
    last,
    raw,
    rawLength: raw.length,
    crc: crc32(raw),
    digest: createHash('sha256').update(raw).digest('binary'),
  };
}

/** The (up to) 32 KiB of identity bytes before segment `index`. */
function dictionaryBefore(parts: readonly (Segment | RawSegment)[], index: number): Buffer | undefined {
  const pieces: Buffer[] = [];
  let reach = 0;
  for (let back = index - 1; back >= 0 && reach < WINDOW; back--) {
    const raw = parts[back]!.raw!;
    pieces.unshift(raw.length > WINDOW - reach ? raw.subarray(raw.length - (WINDOW - reach)) : raw);
    reach += Math.min(raw.length, WINDOW - reach);
  }
  if (pieces.length === 0) return undefined;
  return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
}

async function compressSegment(
  part: Segment | RawSegment,
  dictionary: Buffer | undefined,
  level: number,
): Promise<Segment> {
  const deflated = await deflateRawAsync(part.raw!, {
    level,
    finishFlush: constants.Z_FULL_FLUSH,
    ...(dictionary ? { dictionary } : {}),
  });
  return new Segment(
    part.ids,
    part.lengths,
    part.first,
    part.last,
    part.raw,
    part.rawLength,
    part.crc,
    part.digest,
    deflated,
  );
}
