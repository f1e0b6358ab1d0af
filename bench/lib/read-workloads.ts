/** The 500-item menu's read workloads that bench/read-path.ts and bench/instructions.ts both drive. */
import type { BenchDispensary } from './data.js';
import { type BenchRequest, type Credential, formARequest, formBRequest } from './measure.js';
import { v1Request } from './v1-requests.js';

export interface ReadWorkload {
  name: string;
  request: BenchRequest;
  /** The path and query read (default /menu). */
  path?: string;
  /** The status it must answer (default 200). */
  status?: number;
}

/** Form B gzip and identity, Form A gzip, Form v1's unfiltered menu, and a 403 for a token nobody holds. */
export function menuReads(credential: Credential, m500: BenchDispensary): Record<string, ReadWorkload> {
  const unknownToken = formBRequest(credential, m500, 'gzip');
  return {
    'b-gzip': { name: 'Form B, gzip, 500 items', request: formBRequest(credential, m500, 'gzip') },
    'b-identity': { name: 'Form B, identity, 500 items', request: formBRequest(credential, m500) },
    'a-gzip': { name: 'Form A, gzip, 500 items', request: formARequest(credential, m500, 'gzip') },
    '403': {
      name: 'Form B, 403 (unknown token), 500 items',
      request: { ...unknownToken, headers: { ...unknownToken.headers, store: 'no-such-token' } },
      status: 403,
    },
    'v1-gzip': {
      name: 'Form v1, unfiltered, gzip, 500 items',
      request: v1Request(credential, m500, 'gzip'),
      path: '/v1/menu?limit=1000',
    },
  };
}
