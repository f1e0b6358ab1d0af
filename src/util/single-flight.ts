/** A piece of work in progress, and the generation of the data it began under. */
interface Flight<V> {
  readonly stamp: number;
  readonly promise: Promise<V>;
}

/**
 * Work done once for everyone who asks at the same time: a caller that asks for a key whose work is
 * in progress gets that work's promise instead of starting it again. Each piece of work carries the
 * stamp (a generation number) of the data it began under, and is joined only by callers asking under
 * the same stamp: work that began before a change is never handed to a reader after it. Work is
 * forgotten when it settles, and replaced when work under a newer stamp begins.
 */
export class SingleFlight<K, V> {
  private readonly flights = new Map<K, Flight<V>>();

  /** The promise of the work on `key` begun under `stamp`, while it is in progress. */
  joinable(key: K, stamp: number): Promise<V> | undefined {
    const flight = this.flights.get(key);
    return flight !== undefined && flight.stamp === stamp ? flight.promise : undefined;
  }

  /**
   * The work on `key` under `stamp`: the one in progress, or the one `start` begins now. `start` is
   * given the promise of work on the key under an older stamp that is still in progress (to follow it,
   * when two may not overlap).
   */
  run(key: K, stamp: number, start: (earlier: Promise<V> | undefined) => Promise<V>): Promise<V> {
    const earlier = this.flights.get(key);
    if (earlier !== undefined && earlier.stamp === stamp) return earlier.promise;
    const flight: Flight<V> = { stamp, promise: start(earlier?.promise) };
    this.flights.set(key, flight);
    const done = () => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    };
    flight.promise.then(done, done);
    return flight.promise;
  }
}
