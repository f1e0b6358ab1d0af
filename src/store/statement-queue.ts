/**
 * Statements of one write transaction that run one after another, in the order queued, while the write
 * goes on making the next ones. A full sync that rewrites 5,000 rich items spent about as much CPU
 * making its rows as PostgreSQL spent writing them, one after the other on a machine of two cores
 * (bench/PROFILE.md, rounds seventeen and twenty-one); queued, the database writes one slice of rows while
 * the process makes the next. The process must let the event loop turn now and then (Dialect.turn):
 * a statement that finished starts the next one from there.
 *
 * After a statement fails nothing queued after it runs, and `done` throws that failure: the first
 * statement's own error (a unique violation, say), not the "transaction is aborted" of those after it.
 */
export class StatementQueue {
  private last: Promise<void> = Promise.resolve();

  /** Runs `statements` once everything queued before has run; the caller goes on meanwhile. */
  queue(statements: () => Promise<unknown>): void {
    this.last = this.last.then(async () => {
      await statements();
    });
    // The failure is thrown by `done`; until the write asks for it, Node must not take it as unhandled.
    this.last.catch(() => {});
  }

  /** Waits for every statement queued; throws the first failure. */
  done(): Promise<void> {
    return this.last;
  }
}

/**
 * Runs `work` with a queue of statements (see StatementQueue) and waits for every statement it queued,
 * also when `work` fails: the transaction must not be rolled back, nor its connection given back,
 * while statements of it are still to run. A statement's failure is thrown before `work`'s own, which
 * may only follow from it.
 */
export async function withStatementQueue<T>(work: (queue: StatementQueue) => Promise<T>): Promise<T> {
  const queue = new StatementQueue();
  let result: T;
  try {
    result = await work(queue);
  } catch (error) {
    await queue.done();
    throw error;
  }
  await queue.done();
  return result;
}
