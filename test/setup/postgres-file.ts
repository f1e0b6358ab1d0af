import { afterAll } from 'vitest';
import { dropFileDatabases } from '../helpers/database.js';

// Setup file of the "postgres" project: each test file drops the databases it made when it ends.
afterAll(async () => {
  await dropFileDatabases();
});
