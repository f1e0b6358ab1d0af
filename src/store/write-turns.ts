/**
 * The order in which this process's writes take a database connection. Writes to one dispensary take
 * turns here, in arrival order, before they take a pooled connection: in the database they would wait
 * for each other anyway (its row lock), and each one waiting there would hold a connection that reads
 * need. And at most `slots` writes hold a connection at once, so that however many writes queue up,
 * the rest of the pool stays free for reads (a backlog of writes slows writes, never reads).
 */
export class WriteTurns {
  /** Per dispensary, the promise the next write to it waits for (the end of the last one queued). */
  private readonly tails = new Map<number, Promise<void>>();
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  /** `slots`: how many writes may hold a connection at once (Infinity: no limit). */
  constructor(private readonly slots: number) {
    if (!(slots >= 1)) throw new RangeError(`write slots must be at least 1, not ${slots}`);
  }

  /** Runs `work` once the writes to `dispensaryId` before it have finished and a slot is free. */
  async run<T>(dispensaryId: number | undefined, work: () => Promise<T>): Promise<T> {
    if (dispensaryId === undefined) return this.inSlot(work);
    const before = this.tails.get(dispensaryId);
    let finished!: () => void;
    const mine = new Promise<void>((resolve) => {
      finished = resolve;
    });
    this.tails.set(dispensaryId, mine);
    try {
      // A write that failed before this one still ends its turn (see `finally`): nothing to catch.
      // Without one, the slot is asked for at once, so that writes get slots in arrival order.
      if (before) await before;
      return await this.inSlot(work);
    } finally {
      finished();
      if (this.tails.get(dispensaryId) === mine) this.tails.delete(dispensaryId);
    }
  }

  private async inSlot<T>(work: () => Promise<T>): Promise<T> {
    if (this.held < this.slots) this.held++;
    // A slot handed over by `release` stays counted in `held`.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
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
