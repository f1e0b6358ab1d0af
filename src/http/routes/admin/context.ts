import type { Services } from '../../../services/index.js';
import type { idempotentWriter } from './idempotent.js';

/** What every route file of the sync API is given: the services, and the Idempotency-Key writer. */
export interface AdminContext {
  services: Services;
  write: ReturnType<typeof idempotentWriter>;
}
