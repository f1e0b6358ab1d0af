import { nextBoundary } from '../domain/special-schedule.js';
import type { DispensarySpecials, Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import type { AfterWrite } from './dispensaries.js';

export interface SpecialSchedulerOptions {
  /** The clock boundaries are read by (tests move it). */
  now?: () => number;
  /**
   * The longest wait before the plan is read again whatever happens (a clock that jumped, a notice
   * lost): every change of specials or store information read from the change feed replans at once.
   */
  maxWaitMs?: number;
  onError?: (error: unknown) => void;
}

/** The change kinds that can move a boundary: specials are menu writes; the time zone is the store's. */
const REPLAN_ON = new Set(['menu', 'store', 'dispensary']);

/**
 * Records each special boundary in the live feed as it passes: a timer set for the next start or end
 * of any dispensary's special wakes this process, which records every boundary up to now
 * (SpecialRepository.recordBoundary: the items it reprices become changes of the feed, and so of
 * /changes, /events and the webhooks). Every server process runs one; each boundary is claimed in
 * the database in the transaction of its feed entries, so it is recorded once however many run.
 * Boundaries that pass while no process runs are not recorded later: their effect is in every read.
 */
export class SpecialScheduler {
  private readonly now: () => number;
  private readonly maxWaitMs: number;
  /** Boundaries up to here are recorded (by this process or another). */
  private recordedUpTo: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly store: Store,
    private readonly feed: ChangeFeed | undefined,
    private readonly afterWrite: AfterWrite,
    private readonly options: SpecialSchedulerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.recordedUpTo = this.now();
  }

  /** Starts from now: the next boundary of any special is waited for. */
  start(): void {
    this.stopped = false;
    this.recordedUpTo = this.now();
    this.feed?.subscribe((change) => {
      if (!this.stopped && REPLAN_ON.has(change.kind)) this.wake();
    });
    this.wake();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Records every boundary after the last run up to now, then (when started) sets the timer for the
   * next one. One run at a time; a run asked for during one follows it. Resolves to the boundaries
   * this process recorded.
   */
  async run(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.round();
    try {
      return await this.running;
    } finally {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    }
  }

  private wake(): void {
    this.run().catch((error) => this.options.onError?.(error));
  }

  private async round(): Promise<number> {
    clearTimeout(this.timer);
    let recorded = 0;
    let every: DispensarySpecials[] = [];
    try {
      const upTo = this.now();
      every = await this.store.specials.everyDispensary();
      for (const dispensary of every) {
        let after = this.recordedUpTo;
        for (;;) {
          const boundary = nextOf(dispensary, after);
          if (boundary === null || boundary > upTo) break;
          const items = await this.store.specials.recordBoundary(
            dispensary.dispensaryId,
            new Date(boundary).toISOString(),
          );
          if (items !== undefined) recorded++;
          after = boundary;
        }
      }
      this.recordedUpTo = upTo;
      if (recorded > 0) await this.afterWrite();
    } finally {
      // Also after a failure (the database unreachable): tried again at the next wake-up.
      this.arm(every);
    }
    return recorded;
  }

  private arm(every: readonly DispensarySpecials[]): void {
    if (this.stopped) return;
    let next: number | null = null;
    for (const dispensary of every) {
      const boundary = nextOf(dispensary, this.recordedUpTo);
      if (boundary !== null && (next === null || boundary < next)) next = boundary;
    }
    const wait = next === null ? this.maxWaitMs : Math.min(Math.max(0, next - this.now()), this.maxWaitMs);
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }
}

/** The dispensary's first special boundary after `after` (ms), or null. */
function nextOf(dispensary: DispensarySpecials, after: number): number | null {
  let next: number | null = null;
  for (const special of dispensary.specials) {
    const boundary = nextBoundary(special, dispensary.timezone, after);
    if (boundary !== null && (next === null || boundary < next)) next = boundary;
  }
  return next;
}
