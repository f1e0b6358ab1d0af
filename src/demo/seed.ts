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
} as const;

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
  if (!(await dispensaries.findByToken(DEMO.token))) {
    const dispensary = await dispensaries.createWithToken(DEMO.dispensaryName, DEMO.token);
    await menus.replace(dispensary.id, menus.validate(demoMenu));
  }
  if (!(await credentials.exists(DEMO.username))) {
    await credentials.issueWithPassword(DEMO.username, DEMO.password);
  }
  if (!(await adminKeys.list()).some((key) => key.name === DEMO.adminKeyName)) {
    await adminKeys.createWithKey(DEMO.adminKeyName, 'all', DEMO.adminKey);
  }
}
