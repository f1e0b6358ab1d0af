/**
 * The two functions of `semver` (installed with npm's own tooling and many dependencies, not a direct
 * dependency) that test/project/node-versions.test.ts uses; it ships no types of its own.
 */
declare module 'semver' {
  const semver: { satisfies(version: string, range: string): boolean; major(version: string): number };
  export default semver;
}
