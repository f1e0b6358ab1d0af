import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../../src/util/single-flight.js';

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('starts the work once for callers under the same stamp', async () => {
    const flights = new SingleFlight<string, number>();
    const work = deferred<number>();
    let starts = 0;
    const start = () => {
      starts++;
      return work.promise;
    };
    const first = flights.run('a', 1, start);
    const second = flights.run('a', 1, start);
    expect(second).toBe(first);
    expect(flights.joinable('a', 1)).toBe(first);
    expect(starts).toBe(1);
    work.resolve(7);
    expect(await second).toBe(7);
  });

  it('keeps keys apart', () => {
    const flights = new SingleFlight<string, number>();
    const a = flights.run('a', 1, () => new Promise(() => {}));
    const b = flights.run('b', 1, () => new Promise(() => {}));
    expect(b).not.toBe(a);
  });

  it('never hands work begun under another stamp to a caller, and gives the new work the older promise', async () => {
    const flights = new SingleFlight<string, number>();
    const old = deferred<number>();
    const before = flights.run('a', 1, () => old.promise);
    expect(flights.joinable('a', 2)).toBeUndefined();
    let earlier: Promise<number> | undefined;
    const after = flights.run('a', 2, (given) => {
      earlier = given;
      return new Promise(() => {});
    });
    expect(earlier).toBe(before);
    expect(after).not.toBe(before);
    // The older work settling does not forget the newer.
    old.resolve(1);
    await before;
    expect(flights.joinable('a', 2)).toBe(after);
  });

  it('forgets work when it settles, fulfilled or rejected', async () => {
    const flights = new SingleFlight<string, number>();
    const fulfilled = flights.run('a', 1, () => Promise.resolve(1));
    await fulfilled;
    await Promise.resolve();
    expect(flights.joinable('a', 1)).toBeUndefined();
    const rejected = flights.run('b', 1, () => Promise.reject(new Error('failed')));
    await expect(rejected).rejects.toThrow('failed');
    await Promise.resolve();
    expect(flights.joinable('b', 1)).toBeUndefined();
    let again = 0;
    await flights.run('b', 1, () => {
      again++;
      return Promise.resolve(2);
    });
    expect(again).toBe(1);
  });
});
