// The dependency rules of src/ (issue 11, "Dependencies point down"); `npm run check:deps`, part of `npm run lint`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle, type-only imports included, ties modules so neither can change or load alone.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lower-layers-not-on-edges',
      severity: 'error',
      comment:
        'services, store, domain, auth and infra sit below the request forms, the HTTP server and the CLI; ' +
        'type-only imports are allowed, runtime imports are not.',
      from: { path: '^src/(services|store|domain|auth|infra)/' },
      to: { path: '^src/(forms|http|cli)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-is-a-leaf',
      severity: 'error',
      comment: 'The domain (item schema, money, validation) depends on no other part of the app.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'config-is-a-leaf',
      severity: 'error',
      comment: 'Settings are read before anything else loads, so they import nothing of the app.',
      from: { path: '^src/(config\\.ts$|config/)' },
      to: { path: '^src/', pathNot: '^src/(config\\.ts$|config/)' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    moduleSystems: ['es6'],
  },
};
