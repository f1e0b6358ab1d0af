import type { BenchDispensary } from './data.js';
import { type BenchRequest, type Credential, getRequest } from './measure.js';

/** Form v1: GET /v1/menu, HTTP Basic and Dispensary-Token. */
export const v1Request = (
  { username, password }: Credential,
  dispensary: BenchDispensary,
  acceptEncoding?: string,
): BenchRequest =>
  getRequest(
    {
      authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
      'dispensary-token': dispensary.token,
    },
    acceptEncoding,
  );

/** Issue 32's filtered Form v1 page: one product type, by price, 100 items (bench/v1.ts, read-path.ts). */
export const V1_FILTERED = '/v1/menu?product_type=Flower&sort=price&limit=100';
