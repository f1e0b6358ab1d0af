import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/cli.js';

/**
 * issue 15, point 11: `npm install` must not warn that a dependency needs a newer Node than the one
 * `engines` promises. Every package the lockfile installs must accept the oldest Node of each line
 * package.json supports (20.19 and 22.13), and README says which versions are supported and tested.
 */
const pkg = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as {
  engines: { node: string };
  overrides?: Record<string, Record<string, string>>;
};
const lock = JSON.parse(readFileSync(join(REPOSITORY, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
};
const OLDEST = ['20.19.0', '22.13.0'];

describe('supported Node versions', () => {
  it('engines names the oldest supported releases of Node 20 and 22, and the lockfile agrees', () => {
    for (const version of OLDEST) expect(semver.satisfies(version, pkg.engines.node), version).toBe(true);
    expect(semver.satisfies('20.18.0', pkg.engines.node)).toBe(false);
    expect(lock.packages['']?.engines).toEqual(pkg.engines);
  });

  it('every package the lockfile installs accepts them (no EBADENGINE warning)', () => {
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      // Optional packages for other platforms (WebAssembly bindings) are not installed here.
      if (!path || !range || entry.optional) continue;
      for (const version of OLDEST)
        if (!semver.satisfies(version, range))
          refusing.push(`${path}@${entry.version}: node ${range} (not ${version})`);
    }
    expect(refusing).toEqual([]);
  });

  it('light-my-request (through fastify) gets cookie 1, which accepts Node 20, not cookie 2', () => {
    expect(pkg.overrides?.['light-my-request']?.cookie).toBeDefined();
    const cookies = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/cookie'));
    expect(cookies.map(([, entry]) => semver.major(entry.version ?? '0.0.0'))).toEqual([1]);
  });

  it('README says which Node versions are supported and which are tested', () => {
    const readme = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
    expect(readme).toMatch(/Node versions.*supported.*20\.19.*22\.13/s);
    expect(readme).toMatch(/tested on Node 20/i);
  });
});
