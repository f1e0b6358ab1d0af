import type { ScryptCost } from '../auth/password.js';
import type { Store } from '../store/store.js';
import { AdminKeyService } from './admin-keys.js';
import { AuditService } from './audit.js';
import { CredentialService } from './credentials.js';
import { type AfterWrite, DispensaryService } from './dispensaries.js';
import { MenuService } from './menus.js';

/** The write-side services, shared by the HTTP layer and the CLI so that each rule exists once. */
export interface Services {
  store: Store;
  dispensaries: DispensaryService;
  credentials: CredentialService;
  menus: MenuService;
  adminKeys: AdminKeyService;
  audit: AuditService;
}

export function createServices(store: Store, afterWrite?: AfterWrite, scryptCost?: ScryptCost): Services {
  return {
    store,
    dispensaries: new DispensaryService(store, afterWrite),
    credentials: new CredentialService(store, afterWrite, scryptCost),
    menus: new MenuService(store, afterWrite),
    adminKeys: new AdminKeyService(store, afterWrite),
    audit: new AuditService(store),
  };
}
