import { nextBoundary } from '../domain/special-schedule.js';
import type { DispensarySpecials, PreparedBoundary, Store } from '../store/store.js';
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
  /**
   * How long before a boundary what it records is read (SpecialRepository.prepareBoundary), so that
   * at the boundary only the writing is left (default 500 ms).
   */
  prepareAheadMs?: number;
  onError?: (error: unknown) => void;
}

/** A boundary's recording being read ahead (reading: undefined when the dispensary is gone, or the read failed). */
interface Preparing {
  boundary: number;
  reading: Promise<PreparedBoundary | undefined>;
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
 *
 * A moment before each boundary (prepareAheadMs) the process reads what it will record, so that the
 * boundary's transaction only writes: the changes are in the feed at the boundary, not a menu's read
 * later (bench/PROFILE.md, round twenty-four). A change of the dispensary in between is caught by
 * recordBoundary, which then reads them again.
 */
export class SpecialScheduler {
  private readonly now: () => number;
  private readonly maxWaitMs: number;
  private readonly prepareAheadMs: number;
  private prepareTimer: NodeJS.Timeout | undefined;
  /** Boundaries being read ahead, by dispensary and instant (see keyOf); taken when recorded. */
  private readonly prepared = new Map<string, Preparing>();
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
    this.prepareAheadMs = options.prepareAheadMs ?? 500;
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
    clearTimeout(this.prepareTimer);
    this.prepared.clear();
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
          const key = keyOf(dispensary.dispensaryId, boundary);
          const prepared = await this.prepared.get(key)?.reading;
          this.prepared.delete(key);
          const items = await this.store.specials.recordBoundary(
            dispensary.dispensaryId,
            new Date(boundary).toISOString(),
            undefined,
            prepared,
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
    // Read ahead for boundaries that are past now: not recorded (nor wanted) any more.
    for (const [key, { boundary }] of this.prepared)
      if (boundary <= this.recordedUpTo) this.prepared.delete(key);
    if (this.stopped) return;
    let next: number | null = null;
    for (const dispensary of every) {
      const boundary = nextOf(dispensary, this.recordedUpTo);
      if (boundary !== null && (next === null || boundary < next)) next = boundary;
    }
    const wait = next === null ? this.maxWaitMs : Math.min(Math.max(0, next - this.now()), this.maxWaitMs);
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
    clearTimeout(this.prepareTimer);
    if (next === null || next - this.prepareAheadMs - this.now() >= this.maxWaitMs) return;
    const boundary = next;
    const dispensaries = every.filter((dispensary) => nextOf(dispensary, this.recordedUpTo) === boundary);
    this.prepareTimer = setTimeout(
      () => this.prepare(dispensaries, boundary),
      Math.max(0, boundary - this.prepareAheadMs - this.now()),
    );
    this.prepareTimer.unref();
  }

  /** Reads ahead what each dispensary's boundary records (once per boundary, whatever the wake-ups). */
  private prepare(dispensaries: readonly DispensarySpecials[], boundary: number): void {
    if (this.stopped) return;
    const at = new Date(boundary).toISOString();
    for (const { dispensaryId } of dispensaries) {
      const key = keyOf(dispensaryId, boundary);
      if (this.prepared.has(key)) continue;
      const reading = this.store.specials.prepareBoundary(dispensaryId, at).catch((error: unknown) => {
        // The boundary is then read when it is recorded, as without preparing.
        this.options.onError?.(error);
        return undefined;
      });
      this.prepared.set(key, { boundary, reading });
    }
  }
}

const keyOf = (dispensaryId: number, boundary: number): string => `${dispensaryId}@${boundary}`;

/** The dispensary's first special boundary after `after` (ms), or null. */
function nextOf(dispensary: DispensarySpecials, after: number): number | null {
  let next: number | null = null;
  for (const special of dispensary.specials) {
    const boundary = nextBoundary(special, dispensary.timezone, after);
    if (boundary !== null && (next === null || boundary < next)) next = boundary;
  }
  return next;
}
