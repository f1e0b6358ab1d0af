import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../src/store/unavailable.js';
import { WriteTurns } from '../../src/store/write-turns.js';

/** A piece of work that runs until `finish` is called, recording when it started. */
function pending(log: string[], name: string) {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = () => resolve(name);
    fail = reject;
  });
  return {
    work: () => {
      log.push(name);
      return done;
    },
    finish: () => finish(),
    fail: (error: Error) => fail(error),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('WriteTurns', () => {
  it('runs writes to one dispensary one at a time, in arrival order, a failed one included', async () => {
    const turns = new WriteTurns(10);
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => pending(log, name));
    // Settled as they end, so that the failed one is never an unhandled rejection.
    const outcomes = Promise.allSettled([
      turns.run(1, a!.work),
      turns.run(1, b!.work),
      turns.run(1, c!.work),
    ]);
    await settle();
    expect(log).toEqual(['a']);
    a!.fail(new Error('rolled back'));
    await settle();
    expect(log).toEqual(['a', 'b']);
    b!.finish();
    c!.finish();
    expect(await outcomes).toMatchObject([
      { status: 'rejected' },
      { status: 'fulfilled', value: 'b' },
      { status: 'fulfilled', value: 'c' },
    ]);
  });

  it('lets at most `slots` writes run at once, across dispensaries and writes to none', async () => {
    const turns = new WriteTurns(2);
    const log: string[] = [];
    const works = ['a', 'b', 'c', 'd'].map((name) => pending(log, name));
    const results = [
      turns.run(1, works[0]!.work),
      turns.run(2, works[1]!.work),
      turns.run(undefined, works[2]!.work),
      turns.run(3, works[3]!.work),
    ];
    await settle();
    expect(log).toEqual(['a', 'b']);
    works[1]!.finish();
    await settle();
    expect(log).toEqual(['a', 'b', 'c']);
    works[0]!.finish();
    await settle();
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    works[2]!.finish();
    works[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a write waiting for its dispensary’s turn holds no slot meanwhile', async () => {
    const turns = new WriteTurns(2);
    const log: string[] = [];
    const [first, second, other] = ['first', 'second', 'other'].map((name) => pending(log, name));
    const results = [turns.run(1, first!.work), turns.run(1, second!.work), turns.run(2, other!.work)];
    await settle();
    expect(log).toEqual(['first', 'other']);
    first!.finish();
    await settle();
    expect(log).toEqual(['first', 'other', 'second']);
    second!.finish();
    other!.finish();
    expect(await Promise.all(results)).toEqual(['first', 'second', 'other']);
  });

  it('a write that waits longer than the limit gives up with 503 (unavailable); the order holds for the rest', async () => {
    const turns = new WriteTurns(1, 30);
    const log: string[] = [];
    const [slow, late, other, next] = ['slow', 'late', 'other', 'next'].map((name) => pending(log, name));
    const running = turns.run(1, slow!.work);
    const lateResult = turns.run(1, late!.work);
    const otherResult = turns.run(2, other!.work);
    await expect(lateResult).rejects.toSatisfy(isStoreUnavailable);
    await expect(otherResult).rejects.toSatisfy(isStoreUnavailable);
    // The write after the one that gave up still waits for the one before it.
    const nextResult = turns.run(1, next!.work);
    await settle();
    expect(log).toEqual(['slow']);
    slow!.finish();
    await settle();
    expect(log).toEqual(['slow', 'next']);
    next!.finish();
    expect(await Promise.all([running, nextResult])).toEqual(['slow', 'next']);
  });
});
