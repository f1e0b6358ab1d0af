import type { AdminKeyService } from '../services/admin-keys.js';
import type { CredentialService } from '../services/credentials.js';
import type { DispensaryService } from '../services/dispensaries.js';
import type { MenuService } from '../services/menus.js';
import demoMenu from './menu.json' with { type: 'json' };

/**
 * Well-known demo secrets, printed on every start so the curl commands can be pasted.
 * They are public by design: never run --demo on a server that holds real dispensaries.
 */
export const DEMO = {
  dispensaryName: 'Demo Collective',
  token: 'demo-collective-token',
  username: 'demo',
  password: 'demo-password',
  /** The console's demo sign-in: an admin key with scope all, as public as the rest. */
  adminKeyName: 'demo-console',
  adminKey: 'mak_demo-console-key',
  /** Where its public pages live: /m/demo, /board/demo. */
  slug: 'demo',
} as const;

const day = (open: string, close: string) => ({ open, close, closed: false as const });

/**
 * The demo dispensary's store information (snake_case, as the sync API takes it): a complete, realistic
 * store, so that `/store` on a demo server shows what a real one would. The address, the 555 phone
 * number and the .example domain are fictional.
 */
export const DEMO_STORE = {
  name: DEMO.dispensaryName,
  address: '1200 Harbor Blvd',
  city: 'Oakland',
  state: 'CA',
  postal_code: '94607',
  country: 'US',
  phone: '+1 510 555 0100',
  email: 'hello@demo-collective.example',
  website: 'https://demo-collective.example',
  timezone: 'America/Los_Angeles',
  license_number: 'C10-0000001-LIC',
  currency: 'USD',
  hours: {
    monday: day('09:00', '21:00'),
    tuesday: day('09:00', '21:00'),
    wednesday: day('09:00', '21:00'),
    thursday: day('09:00', '21:00'),
    friday: day('09:00', '23:00'),
    saturday: day('10:00', '02:00'),
    sunday: { open: null, close: null, closed: true as const },
  },
  logo: 'https://demo-collective.example/logo.png',
};

export interface DemoServices {
  dispensaries: DispensaryService;
  credentials: CredentialService;
  menus: MenuService;
  adminKeys: AdminKeyService;
}

/** Creates the demo dispensary, credential and menu unless they exist; a second start changes nothing. */
export async function ensureDemo({
  dispensaries,
  credentials,
  menus,
  adminKeys,
}: DemoServices): Promise<void> {
  let dispensary = await dispensaries.findByToken(DEMO.token);
  if (!dispensary) {
    dispensary = await dispensaries.createWithToken(DEMO.dispensaryName, DEMO.token);
    await menus.replace(dispensary.id, menus.validate(demoMenu));
  }
  // Also a demo database made before the demo had an address: it gets its store information once.
  if ((await dispensaries.storeInfo(dispensary.id)).timezone === null) {
    await dispensaries.updateStoreInfo(dispensary.id, DEMO_STORE);
  }
  // Published once, at the slug the banner prints; an operator who unpublishes it later is not overruled.
  if ((await dispensaries.publishing(dispensary.id)).slug === null) {
    await dispensaries.applyPublishing(dispensary.id, { published: true, slug: DEMO.slug });
  }
  if (!(await credentials.exists(DEMO.username))) {
    await credentials.issueWithPassword(DEMO.username, DEMO.password);
  }
  if (!(await adminKeys.list()).some((key) => key.name === DEMO.adminKeyName)) {
    await adminKeys.createWithKey(DEMO.adminKeyName, 'all', DEMO.adminKey);
  }
}
