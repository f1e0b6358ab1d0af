import type { Change, Store } from '../store/store.js';

export type ChangeListener = (change: Change) => void;

/**
 * Reads the store's change notices and hands each to the listeners (the caches).
 * Polling catches writes by other processes (the CLI, other servers); a process that writes
 * calls `poll()` itself right after, so its own caches drop the change before it answers.
 */
export class ChangeFeed {
  private lastSeq = 0;
  private readonly listeners: ChangeListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly pollIntervalMs: number,
  ) {}

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    this.lastSeq = await this.store.lastChangeSeq();
    this.timer = setInterval(() => {
      this.poll().catch(() => {
        // A failed poll is retried on the next tick; the caches stay as they were until then.
      });
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One poll at a time; a caller arriving during a poll gets a fresh one after it. */
  async poll(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    this.inFlight = this.readChanges();
    try {
      await this.inFlight;
    } finally {
      this.inFlight = undefined;
    }
  }

  private async readChanges(): Promise<void> {
    const changes = await this.store.changesSince(this.lastSeq);
    for (const change of changes) {
      for (const listener of this.listeners) listener(change);
      this.lastSeq = change.seq;
    }
  }
}
