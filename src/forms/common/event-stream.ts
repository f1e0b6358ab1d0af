import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EndReason, LiveHub, LiveSubscriber, StreamAccess } from '../../services/live-hub.js';
import type { MenuFeed } from '../../services/menu-feed.js';
import type { MenuChange } from '../../store/store.js';
import type { LiveContext } from '../form.js';

/** Changes read from the feed per query while a stream catches up. */
const REPLAY_PAGE = 1_000;

export interface EventStreamOptions {
  hub: LiveHub;
  feed: MenuFeed;
  dispensaryId: number;
  access: StreamAccess;
  /** Replay the changes after this cursor first; undefined: from the oldest kept. */
  after: number | undefined;
  /** The whole event of a change, in the form's shape (`id:`, `event:`, `data:` lines and the blank line). */
  frame: (change: MenuChange) => string;
  /**
   * For a form whose events depend on the dispensary now (Form v1 prices items under the specials
   * now): gives the `frame` to send the next batch with, asked before each batch. Batches still go
   * out in order, each after the one before; left out, `frame` is used at once.
   */
  framer?: () => Promise<(change: MenuChange) => string>;
  /** Events the reader may fall behind (written while the socket's buffer is full) before it is cut off. */
  maxBacklog: number;
  /** The answer's headers from the stream's own (LiveContext.streamHeaders). */
  headers: LiveContext['streamHeaders'];
}

/**
 * One `/events` answer: a subscriber of the live hub that writes each change of its dispensary as a
 * server-sent event. It subscribes first and buffers what the hub hands it while it replays the
 * changes after the client's cursor from the feed, then sends the buffer and goes live: every change
 * is sent once, in cursor order (nothing older than the last sent is written), with no gap between
 * the replay and the live part.
 */
class EventStream implements LiveSubscriber {
  /** While replaying: what the hub handed over meanwhile. */
  private buffer: MenuChange[] | undefined = [];
  private lastSent = 0;
  /** Events written while the socket's buffer was full. */
  private behind = 0;
  /** With a framer: the live batches waiting for their frame, each sent after the one before. */
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private response: ServerResponse | undefined;
  ended = false;

  constructor(
    readonly dispensaryId: number,
    readonly access: StreamAccess,
    private readonly options: EventStreamOptions,
  ) {}

  changes(batch: readonly MenuChange[]): void {
    if (this.ended) return;
    if (this.buffer) {
      this.buffer.push(...batch);
      if (this.buffer.length > this.options.maxBacklog) this.options.hub.end(this, 'slow');
      return;
    }
    if (this.options.framer) this.enqueue(batch, this.options.framer);
    else this.send(batch, this.options.frame);
  }

  /** Sends a live batch once its frame is known (options.framer), after every batch before it. */
  private enqueue(batch: readonly MenuChange[], framer: NonNullable<EventStreamOptions['framer']>): void {
    this.queued += batch.length;
    // Waiting batches count as falling behind: memory stays bounded while the frames are worked out.
    if (this.queued > this.options.maxBacklog) {
      this.options.hub.end(this, 'slow');
      return;
    }
    this.queue = this.queue.then(async () => {
      try {
        const frame = await framer();
        this.queued -= batch.length;
        this.send(batch, frame);
      } catch {
        // The dispensary could not be read to spell the batch: end; the client resumes with Last-Event-ID.
        this.options.hub.end(this, 'closed');
        this.end('closed');
      }
    });
  }

  heartbeat(): void {
    if (!this.ended && this.response && !this.buffer) this.write(': keep-alive\n\n');
  }

  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = true;
    const response = this.response;
    if (!response || response.destroyed) return;
    // A comment: clients ignore it; a person watching with curl sees why.
    response.end(`: stream ended (${reason})\n\n`);
  }

  /** Writes the headers and replays from the feed, then goes live. */
  async open(response: ServerResponse, first: { changes: MenuChange[]; hasMore: boolean }): Promise<void> {
    this.response = response;
    response.on('drain', () => {
      this.behind = 0;
    });
    this.send(first.changes, this.options.framer ? await this.options.framer() : this.options.frame);
    let more = first.hasMore;
    while (more && !this.ended) {
      if (response.writableNeedDrain) await new Promise((resolve) => response.once('drain', resolve));
      if (this.ended) return;
      const page = await this.options.feed.page(this.dispensaryId, this.lastSent, REPLAY_PAGE);
      this.send(page.changes, this.options.framer ? await this.options.framer() : this.options.frame);
      more = page.hasMore;
    }
    // The frame first: what the hub hands over meanwhile still reaches the buffer sent with it.
    const frame = this.options.framer ? await this.options.framer() : this.options.frame;
    const buffered = this.buffer ?? [];
    this.buffer = undefined;
    this.send(buffered, frame);
  }

  startAt(after: number | undefined): void {
    this.lastSent = after ?? 0;
  }

  /**
   * Writes a batch's events as one write: a boundary's 1,000 events were 1,000 writes (and as many
   * chunks) per stream (bench/PROFILE.md, round twenty-four).
   */
  private send(changes: readonly MenuChange[], frame: (change: MenuChange) => string): void {
    const response = this.response;
    if (this.ended || !response || response.destroyed) return;
    const fullBefore = response.writableNeedDrain;
    // Events written while the reader has not taken the last batch count as falling behind: past the
    // bound the stream is cut after the event that passes it, so that memory stays bounded.
    const room = fullBefore ? this.options.maxBacklog - this.behind + 1 : Number.POSITIVE_INFINITY;
    const events: string[] = [];
    for (const change of changes) {
      if (events.length >= room) break;
      if (change.seq <= this.lastSent) continue;
      this.lastSent = change.seq;
      events.push(frame(change));
    }
    if (events.length === 0) return;
    this.write(events.join(''), fullBefore, events.length);
  }

  /**
   * Writes events (`count` of them). `fullBefore`: the socket's buffer was still full from an earlier
   * write when this batch began. Only events written then count as falling behind: one large batch
   * (a full sync of thousands of items) fills the buffer by itself, for a reader that keeps up as well.
   */
  private write(text: string, fullBefore = this.response?.writableNeedDrain ?? false, count = 1): void {
    const response = this.response!;
    if (response.destroyed) return;
    response.write(text);
    if (fullBefore) {
      // The reader has not taken the last batch yet. Cut off past the bound; it resumes with Last-Event-ID.
      this.behind += count;
      if (this.behind > this.options.maxBacklog) this.options.hub.end(this, 'slow');
    }
  }
}

/**
 * Answers with an event stream (`text/event-stream`). A refusal (the stream limits: 429; an expired
 * or bad cursor: 410, 400) is thrown before anything is written, as an ordinary error answer.
 */
export async function sendEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  options: EventStreamOptions,
): Promise<void> {
  const stream = new EventStream(options.dispensaryId, options.access, options);
  stream.startAt(options.after);
  // Subscribed before the replay reads the feed: whatever commits after that read reaches the buffer.
  const unsubscribe = options.hub.subscribe(stream);
  let first: Awaited<ReturnType<MenuFeed['page']>>;
  try {
    first = await options.feed.page(options.dispensaryId, options.after, REPLAY_PAGE);
  } catch (error) {
    unsubscribe();
    throw error;
  }
  reply.hijack();
  const response = reply.raw;
  response.writeHead(
    200,
    options.headers(request, reply, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    }),
  );
  if (request.method === 'HEAD') {
    // The head alone: a HEAD answer has no body, so Node would send the head only when the stream ends.
    unsubscribe();
    response.end();
    return;
  }
  // Tells EventSource clients how soon to reconnect, and gets the headers out at once.
  response.write('retry: 1000\n\n');
  response.on('close', () => {
    if (stream.ended) return;
    stream.ended = true;
    options.hub.end(stream, 'closed');
  });
  try {
    await stream.open(response, first);
  } catch {
    // The feed could not be read while catching up: end; the client resumes with Last-Event-ID.
    options.hub.end(stream, 'closed');
    stream.end('closed');
  }
}
