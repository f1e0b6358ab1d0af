import { existsSync } from 'node:fs';

/**
 * Debian's Chromium, as every browser test drives it: never a downloaded browser. Elsewhere than CI a
 * missing Chromium skips those tests (saying how to install it); under CI it fails them.
 */
export const CHROMIUM = '/usr/bin/chromium';
const CI = Boolean(process.env.CI) && process.env.CI !== 'false';
export const SKIP_BROWSER = !existsSync(CHROMIUM) && !CI;
export const SKIP_BROWSER_REASON = `SKIPPED: ${CHROMIUM} is missing; install it with \`apt-get install -y chromium\` (CI installs it and runs this test)`;

/** Headless, and quiet: no first-run pages, no background traffic, no updates, no sync. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
