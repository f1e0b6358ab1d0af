import { ADMIN_WRITES, fuzzEndpoints } from './fuzz-kit.js';

/** The sync API's writes fuzzed through app.inject (test/fuzz/fuzz-kit.ts says what every answer must be). */
fuzzEndpoints('sync API write', ADMIN_WRITES);
