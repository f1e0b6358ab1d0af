import type { AccountRepository } from './contracts/accounts.js';
import type { AdminKeyRepository } from './contracts/admin-keys.js';
import type { AuditRepository } from './contracts/audit.js';
import type {
  ConsoleSessionRepository,
  IdempotencyRepository,
  UsageRepository,
} from './contracts/bookkeeping.js';
import type { ChangeRepository, FeedHook, MenuChangeRepository } from './contracts/changes.js';
import type { CredentialRepository } from './contracts/credentials.js';
import type { DispensaryRepository } from './contracts/dispensaries.js';
import type { IntegratorRepository } from './contracts/integrators.js';
import type { MenuRepository } from './contracts/menus.js';
import type { PasskeyRepository } from './contracts/passkeys.js';
import type { SecondFactorRepository } from './contracts/second-factors.js';
import type { SpecialRepository } from './contracts/specials.js';
import type { WebhookRepository } from './contracts/webhooks.js';

// What the store is to the rest of the app: the Store, its repositories' contracts (one module per
// aggregate, in contracts/) and its errors, all importable from here.
export type * from './contracts/accounts.js';
export type * from './contracts/actor.js';
export type * from './contracts/admin-keys.js';
export type * from './contracts/audit.js';
export type * from './contracts/bookkeeping.js';
export * from './contracts/changes.js';
export type * from './contracts/credentials.js';
export type * from './contracts/dispensaries.js';
export type * from './contracts/integrators.js';
export type * from './contracts/menus.js';
export type * from './contracts/passkeys.js';
export type * from './contracts/second-factors.js';
export type * from './contracts/specials.js';
export * from './contracts/webhooks.js';
export * from './errors.js';

/**
 * Everything the service keeps: one repository per aggregate, over one database. Every repository
 * method that writes is one transaction and, when it changes something, records a change notice and
 * an audit entry in it (see write.ts).
 */
export interface Store {
  /** Where the data lives, without secrets, for logs and messages. */
  readonly location: string;
  readonly dispensaries: DispensaryRepository;
  readonly credentials: CredentialRepository;
  readonly menus: MenuRepository;
  readonly adminKeys: AdminKeyRepository;
  readonly accounts: AccountRepository;
  readonly integrators: IntegratorRepository;
  readonly passkeys: PasskeyRepository;
  readonly secondFactors: SecondFactorRepository;
  readonly audit: AuditRepository;
  readonly changes: ChangeRepository;
  readonly menuChanges: MenuChangeRepository;
  readonly idempotency: IdempotencyRepository;
  readonly consoleSessions: ConsoleSessionRepository;
  readonly usage: UsageRepository;
  readonly webhooks: WebhookRepository;
  readonly specials: SpecialRepository;
  /**
   * Registers a hook every write that records live feed changes runs in its transaction, after
   * inserting them (see FeedHook). Register before the first write; hooks run in registration order.
   */
  afterFeed(hook: FeedHook): void;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Throws, with the reason, unless the database answers and every migration has run (for /readyz). */
  checkReady(): Promise<void>;
  /**
   * Optional: calls onNotice when another process may have written (PostgreSQL LISTEN/NOTIFY), and
   * after every reconnection. Resolves to a function that stops listening. Stores without it are polled.
   */
  listen?(onNotice: () => void): Promise<() => Promise<void>>;
}
