import { executionAsyncResource } from 'node:async_hooks';

/** One of Node's tick objects, kept for the life of the process: see keepTickShape. */
let keptTick: object | undefined;

/**
 * Keeps one of Node's tick objects (what `process.nextTick` queues) alive, and with it their shape.
 *
 * `process.nextTick` makes each tick as an object literal whose first keys are symbols. V8 starts
 * every such literal from a shape it caches weakly: a full collection that finds no tick object
 * alive (while modules load, an idle moment, between bursts) lets the shape go, and the next tick
 * starts from a new one. After a few of these, the inline cache that adds the symbol keys has seen
 * too many shapes and gives up: every nextTick then defines its keys in the runtime, six to eight
 * times slower (30 → 190-290 ns), for the rest of the process. A read ends in 7-9 nextTicks (Node's
 * streams and HTTP server), so a server process in that state spent 3-4 µs more CPU per read, and
 * which processes fell into it varied from one start to the next (bench/PROFILE.md, round twenty;
 * test/infra/heap-tuning.test.ts). One tick object held keeps its shape, and the shapes it came from.
 *
 * Called first thing by bin/menu-api, before the command line's bundle loads (the collections of a
 * start), and again by tuneHeapForServing; only the first call keeps one.
 */
export function keepTickShape(): void {
  if (keptTick !== undefined) return;
  // Inside a tick's callback, Node's current resource is the tick object itself.
  process.nextTick(() => {
    keptTick ??= executionAsyncResource();
  });
}
