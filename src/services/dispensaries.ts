import { generateSecret, secretDigest } from '../auth/secrets.js';
import type { Dispensary, DispensarySummary, Store } from '../store/store.js';
import { ServiceError } from './errors.js';

export type AfterWrite = () => Promise<void>;
const nothing: AfterWrite = async () => {};

export interface IssuedToken {
  id: number;
  token: string;
}

/** Onboards dispensaries. Tokens are returned once, here, and stored only as a digest. */
export class DispensaryService {
  constructor(
    private readonly store: Store,
    private readonly afterWrite: AfterWrite = nothing,
  ) {}

  async create(name: string): Promise<Dispensary & { token: string }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 200) {
      throw new ServiceError('invalid_request', 'A dispensary name must be 1 to 200 characters.');
    }
    const token = generateSecret();
    const dispensary = await this.store.createDispensary(trimmed, secretDigest(token));
    await this.afterWrite();
    return { ...dispensary, token };
  }

  /** Creates a dispensary whose token the caller chose (the demo's well-known token). */
  async createWithToken(name: string, token: string): Promise<Dispensary> {
    const dispensary = await this.store.createDispensary(name, secretDigest(token));
    await this.afterWrite();
    return dispensary;
  }

  findByToken(token: string): Promise<Dispensary | undefined> {
    return this.store.findDispensaryByTokenDigest(secretDigest(token));
  }

  list(): Promise<DispensarySummary[]> {
    return this.store.listDispensaries();
  }

  async get(id: number): Promise<Dispensary> {
    const dispensary = await this.store.getDispensary(id);
    if (!dispensary) throw notFound(id);
    return dispensary;
  }

  /** Replaces the token at once: the old one stops working on the next request. */
  async rotateToken(id: number): Promise<IssuedToken> {
    const token = generateSecret();
    if (!(await this.store.setDispensaryToken(id, secretDigest(token)))) throw notFound(id);
    await this.afterWrite();
    return { id, token };
  }

  async remove(id: number): Promise<void> {
    if (!(await this.store.removeDispensary(id))) throw notFound(id);
    await this.afterWrite();
  }
}

export function notFound(id: number): ServiceError {
  return new ServiceError(
    'not_found',
    `There is no dispensary ${id}. List them with: menu-api dispensary list`,
  );
}
