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
  /** Where its public pages live: /m/demo, /board/demo. */
  slug: 'demo',
} as const;

export interface DemoServices {
  dispensaries: DispensaryService;
  credentials: CredentialService;
  menus: MenuService;
}

/** Creates the demo dispensary, credential and menu unless they exist; a second start changes nothing. */
export async function ensureDemo({ dispensaries, credentials, menus }: DemoServices): Promise<void> {
  if (!(await dispensaries.findByToken(DEMO.token))) {
    const dispensary = await dispensaries.createWithToken(DEMO.dispensaryName, DEMO.token);
    await menus.replace(dispensary.id, menus.validate(demoMenu));
  }
  // Published once, at the slug the banner prints; an operator who unpublishes it later is not overruled.
  const demo = await dispensaries.findByToken(DEMO.token);
  if (demo && (await dispensaries.publishing(demo.id)).slug === null) {
    await dispensaries.applyPublishing(demo.id, { published: true, slug: DEMO.slug });
  }
  if (!(await credentials.exists(DEMO.username))) {
    await credentials.issueWithPassword(DEMO.username, DEMO.password);
  }
}
