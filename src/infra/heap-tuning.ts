import { setFlagsFromString } from 'node:v8';
import { keepTickShape } from './tick-shape.js';

/**
 * Tunes V8 for a serving process, before it serves: turns off allocation-site pretenuring, and keeps
 * the shape of Node's tick objects alive (src/infra/tick-shape.ts).
 *
 * V8 watches, per place in the code that makes objects, how many of them survive a young-generation
 * collection; when nearly all do, it decides to make that place's objects in the old generation
 * straight away, and keeps that decision. A server sees exactly that once requests wait together:
 * 32 clients reading a large menu while its snapshot is built, say. Every request's objects made at
 * those places (Node's HTTP parser, Fastify's request and reply) then live in the old generation,
 * and everything younger that they point to survives each young-generation collection with them:
 * for as long as the process runs, a request's garbage is promoted (about 4 KB per read), each
 * young collection takes 5-6 ms instead of 0.4, and a mark-compact runs every 1.6 s (bench/PROFILE.md,
 * round seven). Nothing this server keeps is made in bulk by JavaScript objects worth pretenuring:
 * snapshots are Buffers, outside the V8 heap.
 *
 * Set at run time rather than as a `node` flag so that `npx menu-api serve`, `node bin/menu-api
 * serve` and each `--workers` worker all get it; V8 reads it at each collection, so it holds from
 * here on (bench/read-garbage.ts measures what reads promote, fresh and after such crowds).
 */
export function tuneHeapForServing(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
  keepTickShape();
}
