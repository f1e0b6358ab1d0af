import { write } from 'node:fs';
import { type DestinationStream, pino } from 'pino';

export interface LogDestination {
  stream: DestinationStream;
  /** Log lines dropped so far because the buffer was full (stdout not read fast enough). */
  dropped(): number;
}

/** What a SonicBoom destination offers beyond DestinationStream (sonic-boom's own typings omit some). */
interface SonicBoomLike extends DestinationStream {
  on(event: 'drop', listener: (data: string | Buffer) => void): unknown;
  flushSync(): void;
  retryEAGAIN: (error: Error, writeLength: number, remaining: number) => boolean;
}

/**
 * The server's log destination: stdout (fd 1), written asynchronously, with at most `maxBytes`
 * waiting. When stdout is not read (a full pipe to a log shipper that stopped, `serve | sleep`), the
 * lines beyond that are dropped instead of growing memory, counted (`dropped()`, served at /metrics
 * as menu_api_log_lines_dropped_total), and said once on stderr. At exit pino flushes what is left
 * synchronously; that flush gives up at the first "would block" instead of waiting for a reader that
 * may never come, so that a stuck stdout can never hold the process past its shutdown deadline.
 */
export function boundedStdout(maxBytes: number): LogDestination {
  // Creating process.stdout makes a pipe on fd 1 non-blocking (libuv), so that a full pipe answers
  // "would block" (EAGAIN) rather than blocking the thread that writes.
  void process.stdout;
  const stream = pino.destination({ dest: 1, sync: false, maxLength: maxBytes }) as unknown as SonicBoomLike;
  let dropped = 0;
  stream.on('drop', (data) => {
    const text = typeof data === 'string' ? data : data.toString('utf8');
    let lines = 0;
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
    if (dropped === 0) {
      // Asynchronous and best effort: stderr may be as stuck as stdout.
      write(
        2,
        `menu-api: stdout is not being read fast enough; log lines dropped beyond ${Math.round(maxBytes / 1024)} KiB of backlog (counted in menu_api_log_lines_dropped_total; said once)\n`,
        () => {},
      );
    }
    dropped += Math.max(lines, 1);
  });
  const flushSync = stream.flushSync.bind(stream);
  stream.flushSync = () => {
    const retry = stream.retryEAGAIN;
    stream.retryEAGAIN = () => false;
    try {
      flushSync();
    } catch {
      // The reader is stuck: what is still buffered is lost rather than the exit.
    } finally {
      stream.retryEAGAIN = retry;
    }
  };
  return { stream, dropped: () => dropped };
}
