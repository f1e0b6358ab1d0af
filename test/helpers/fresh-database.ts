import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type TestDatabase, testDatabase } from './database.js';

/**
 * A fresh database (see testDatabase) for the tests of the describe it is called in: made before them
 * and cleaned up after them, once for the whole describe (`all`) or once per test (`each`). Call it
 * before the describe's own hooks: vitest runs after-hooks in reverse order, so theirs set up after the
 * database is made and close what uses it before it goes. Its `address` is there from their hooks on.
 */
export function freshDatabase(per: 'all' | 'each' = 'all'): Pick<TestDatabase, 'address'> {
  let made: TestDatabase | undefined;
  (per === 'all' ? beforeAll : beforeEach)(async () => {
    made = await testDatabase();
  });
  (per === 'all' ? afterAll : afterEach)(async () => {
    await made?.cleanup();
    made = undefined;
  });
  return {
    get address() {
      if (!made) throw new Error('freshDatabase: its address is read before its database is made');
      return made.address;
    },
  };
}
