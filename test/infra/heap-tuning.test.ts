import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(import.meta.dirname, 'fixtures/next-tick-after-collections.ts');

/** The lines of V8's --trace-deopt output of the fixture that throw away nextTick's code for a dead shape. */
function nextTickShapeLosses(...args: string[]): string[] {
  // Its own process: full collections and V8 flags, away from the test runner's heap.
  const output = execFileSync(
    process.execPath,
    ['--expose-gc', '--trace-deopt', '--import', 'tsx', FIXTURE, ...args],
    { encoding: 'utf8' },
  );
  return output.split('\n').filter((line) => line.includes('nextTick') && line.includes('weak objects'));
}

/**
 * A serving process keeps `process.nextTick` cheap after full collections (src/infra/tick-shape.ts):
 * without a tick object kept alive, V8 lets the tick objects' shape go at a full collection that finds
 * none, throws away nextTick's optimized code, and after a few such collections defines every tick's
 * properties in the runtime, six to eight times slower, for good (bench/PROFILE.md, round twenty).
 * Counted from V8's own report, not timed.
 */
describe('tuneHeapForServing', () => {
  it("keeps the tick objects' shape through full collections", () => {
    expect(nextTickShapeLosses()).toEqual([]);
  }, 60_000);

  it('is what keeps it: an untuned process loses it', () => {
    expect(nextTickShapeLosses('untuned').length).toBeGreaterThan(0);
  }, 60_000);
});
