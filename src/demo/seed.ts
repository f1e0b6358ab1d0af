import { EXAMPLE_DISPENSARY, EXAMPLE_STORE } from '../forms/example-dispensary.js';
import type { AdminKeyService } from '../services/admin-keys.js';
import type { CredentialService } from '../services/credentials.js';
import type { DispensaryService } from '../services/dispensaries.js';
import type { MenuService } from '../services/menus.js';
import demoMenu from './menu.json' with { type: 'json' };

/**
 * Well-known demo secrets, printed on every start so the curl commands can be pasted: the API's example
 * dispensary, and the console's sign-in. They are public by design: never run --demo on a server that
 * holds real dispensaries.
 */
export const DEMO = {
  ...EXAMPLE_DISPENSARY,
  /** The console's demo sign-in: an admin key with scope all, as public as the rest. */
  adminKeyName: 'demo-console',
  adminKey: 'mak_demo-console-key',
  /** Where its public pages live: /m/demo, /board/demo. */
  slug: 'demo',
} as const;

/** The demo dispensary's store information: the example one, so that `/store` answers as documented. */
export const DEMO_STORE = EXAMPLE_STORE;

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
