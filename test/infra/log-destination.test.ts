import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(import.meta.dirname, 'fixtures/log-lines-at-exit.ts');

describe("the server's log destination (stdout, written a turn of the event loop at a time)", () => {
  it('writes every line, in order, also those of the turn in which the process exits', () => {
    // Its own process: stdout is a pipe, as under a log shipper.
    const output = execFileSync(process.execPath, ['--import', 'tsx', FIXTURE], { encoding: 'utf8' });
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; msg: string });
    expect(lines.map((line) => line.line)).toEqual(Array.from({ length: 200 }, (_, index) => index));
    expect(lines[199]!.msg).toBe('last turn');
  });
});
