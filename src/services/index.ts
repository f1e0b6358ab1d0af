import type { ScryptCost } from '../auth/password.js';
import type { IntegratorApproval } from '../config/settings.js';
import type { Store } from '../store/store.js';
import { AccountService, type Mailer } from './accounts.js';
import { AdminKeyService } from './admin-keys.js';
import { AuditService } from './audit.js';
import { CredentialService } from './credentials.js';
import { type AfterWrite, DispensaryService } from './dispensaries.js';
import { ServiceError } from './errors.js';
import { IntegratorService } from './integrators.js';
import { type MenuForms, MenuService } from './menus.js';
import { SpecialService } from './specials.js';
import type { WebhookKeySource } from './webhook-key.js';
import { WebhookService } from './webhooks.js';

/** The write-side services, shared by the HTTP layer and the CLI so that each rule exists once. */
export interface Services {
  store: Store;
  dispensaries: DispensaryService;
  credentials: CredentialService;
  menus: MenuService;
  adminKeys: AdminKeyService;
  accounts: AccountService;
  integrators: IntegratorService;
  audit: AuditService;
  webhooks: WebhookService;
  specials: SpecialService;
}

/** Where webhook secrets' key comes from, and whether private targets are allowed (development). */
export interface WebhookSettings {
  keys: WebhookKeySource;
  allowPrivate: boolean;
}

const NO_WEBHOOK_KEY: WebhookSettings = {
  keys: {
    key: () => {
      throw new ServiceError('unavailable', 'Webhooks are not set up in this process.');
    },
  },
  allowPrivate: false,
};

/** `forms`: how the request forms spell items (src/forms/index.ts: MENU_FORMS), for imports and exports. */
export function createServices(
  store: Store,
  forms: MenuForms,
  afterWrite?: AfterWrite,
  scryptCost?: ScryptCost,
  webhooks: WebhookSettings = NO_WEBHOOK_KEY,
  mailer?: Mailer,
  integratorApproval: IntegratorApproval = 'manual',
): Services {
  return {
    store,
    dispensaries: new DispensaryService(store, afterWrite),
    credentials: new CredentialService(store, afterWrite, scryptCost),
    menus: new MenuService(store, forms, afterWrite),
    adminKeys: new AdminKeyService(store, afterWrite),
    accounts: new AccountService(store, { scryptCost, mailer }),
    integrators: new IntegratorService(store, {
      scryptCost,
      mailer,
      approval: integratorApproval,
      afterWrite,
    }),
    audit: new AuditService(store),
    webhooks: new WebhookService(store, webhooks.keys, { ...webhooks, forms: forms.ids }, afterWrite),
    specials: new SpecialService(store, afterWrite),
  };
}
