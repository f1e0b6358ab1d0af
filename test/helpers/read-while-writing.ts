import { isDeepStrictEqual } from 'node:util';

export interface ReadsSeen {
  /** How many reads equalled each version, by index. */
  seen: number[];
  /** Reads that equalled none: half of one write, half of another. */
  mixed: number;
}

/**
 * Reads over and over, for as long as `write` runs, and sorts every read by the whole version it
 * equals. A store that reads one consistent snapshot never produces a `mixed` read.
 */
export async function readWhileWriting(
  read: () => Promise<unknown>,
  versions: readonly unknown[],
  write: () => Promise<void>,
): Promise<ReadsSeen> {
  const seen = versions.map(() => 0);
  let mixed = 0;
  let writing = true;
  const reading = (async () => {
    while (writing) {
      const value = await read();
      const version = versions.findIndex((candidate) => isDeepStrictEqual(value, candidate));
      if (version === -1) mixed++;
      else seen[version]!++;
    }
  })();
  try {
    await write();
  } finally {
    writing = false;
    await reading;
  }
  return { seen, mixed };
}
