import { StoreUnavailableError } from './unavailable.js';

/**
 * The order in which this process's writes take a database connection. Writes to one dispensary take
 * turns here, in arrival order, before they take a pooled connection: in the database they would wait
 * for each other anyway (its row lock), and each one waiting there would hold a connection that reads
 * need. And at most `slots` writes hold a connection at once, so that however many writes queue up,
 * the rest of the pool stays free for reads (a backlog of writes slows writes, never reads).
 *
 * A write waits at most `maxWaitMs` for its turn and its slot together, then fails as the database
 * being unavailable (503 with Retry-After): under overload writes still fail fast, as they did when
 * they waited in the pool, instead of queueing without bound while their clients give up.
 */
export class WriteTurns {
  /** Per dispensary, the promise the next write to it waits for (the end of the last one queued). */
  private readonly tails = new Map<number, Promise<void>>();
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  /** `slots`: how many writes may hold a connection at once (Infinity: no limit). */
  constructor(
    private readonly slots: number,
    private readonly maxWaitMs = Number.POSITIVE_INFINITY,
  ) {
    if (!(slots >= 1)) throw new RangeError(`write slots must be at least 1, not ${slots}`);
  }

  /** Runs `work` once the writes to `dispensaryId` before it have finished and a slot is free. */
  async run<T>(dispensaryId: number | undefined, work: () => Promise<T>): Promise<T> {
    const deadline = performance.now() + this.maxWaitMs;
    if (dispensaryId === undefined) return this.inSlot(work, deadline);
    const before = this.tails.get(dispensaryId);
    let finished!: () => void;
    const mine = new Promise<void>((resolve) => {
      finished = resolve;
    });
    this.tails.set(dispensaryId, mine);
    let ran = false;
    try {
      // A write that failed before this one still ends its turn (see `finally`): nothing to catch.
      // Without one, the slot is asked for at once, so that writes get slots in arrival order.
      if (before) await waitUntil(before, deadline, this.maxWaitMs);
      ran = true;
      return await this.inSlot(work, deadline);
    } finally {
      // A write that gave up waiting ends its turn only when the one before it ends: the writes
      // after it still run one at a time, in order.
      const end = () => {
        finished();
        if (this.tails.get(dispensaryId) === mine) this.tails.delete(dispensaryId);
      };
      if (ran || !before) end();
      else before.then(end);
    }
  }

  private async inSlot<T>(work: () => Promise<T>, deadline: number): Promise<T> {
    if (this.held < this.slots) this.held++;
    else {
      // A slot handed over by `release` stays counted in `held`.
      let handOver!: () => void;
      const handed = new Promise<void>((resolve) => {
        handOver = resolve;
      });
      this.waiting.push(handOver);
      try {
        await waitUntil(handed, deadline, this.maxWaitMs);
      } catch (error) {
        const index = this.waiting.indexOf(handOver);
        if (index >= 0) this.waiting.splice(index, 1);
        // Handed over just as the wait ran out: pass the slot on.
        else this.release();
        throw error;
      }
    }
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}

/** Resolves with `promise`, or fails as unavailable once `deadline` (performance.now()) has passed. */
function waitUntil(promise: Promise<void>, deadline: number, maxWaitMs: number): Promise<void> {
  const left = deadline - performance.now();
  if (left === Number.POSITIVE_INFINITY) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StoreUnavailableError(
            `Writes have waited ${maxWaitMs} ms for their turn: the database is busy with other writes. Retry shortly.`,
          ),
        ),
      Math.max(0, left),
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
