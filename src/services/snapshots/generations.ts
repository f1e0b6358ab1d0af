/**
 * Each dispensary's generation stamp, renewed by every change notice for it: a build stores its result
 * only if the stamp is still the one it started under, so a build that began before a change is never
 * kept. Stamps come from one clock, so a stamp never repeats.
 */
export class Generations {
  private readonly stamps = new Map<number, number>();
  /** The stamp of each dispensary's last change that list views cannot patch (everything may have changed). */
  private readonly fullStamps = new Map<number, number>();
  /** The stamp of the last change of every dispensary at once. */
  private allStamp = 0;
  private clock = 0;

  /** The dispensary's current stamp. */
  of(dispensaryId: number): number {
    return Math.max(this.stamps.get(dispensaryId) ?? 0, this.allStamp);
  }

  /** The stamp of the dispensary's last change that list views cannot patch. */
  fullOf(dispensaryId: number): number {
    return Math.max(this.fullStamps.get(dispensaryId) ?? 0, this.allStamp);
  }

  /** A change of the dispensary's menu that list views can patch item by item. */
  itemsChanged(dispensaryId: number): void {
    this.stamps.set(dispensaryId, ++this.clock);
  }

  /** A change after which nothing of the dispensary's answers can be reused. */
  changed(dispensaryId: number): void {
    const stamp = ++this.clock;
    this.stamps.set(dispensaryId, stamp);
    this.fullStamps.set(dispensaryId, stamp);
  }

  /** A change after which nothing of any dispensary's answers can be reused. */
  allChanged(): void {
    this.allStamp = ++this.clock;
  }
}
