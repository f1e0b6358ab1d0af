import { ADMIN_READS, fuzzEndpoints } from './fuzz-kit.js';

/** The sync API's reads fuzzed through app.inject (test/fuzz/fuzz-kit.ts says what every answer must be). */
fuzzEndpoints('sync API read', ADMIN_READS);
