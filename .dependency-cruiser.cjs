// The dependency rules of src/ (issue 11, "Dependencies point down"); `npm run check:deps`, part of `npm run lint`.

/** The composition root: the modules that build the server from every part and run its processes. */
const COMPOSITION_ROOT = '^src/server/';

/** The rule that the modules matching `path` import nothing of src/ but each other. */
function leaf(name, path, comment) {
  return {
    name: `${name}-is-a-leaf`,
    severity: 'error',
    comment,
    from: { path },
    to: { path: '^src/', pathNot: path },
  };
}

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
      to: { path: '^src/(forms|http|server|cli)/', dependencyTypesNot: ['type-only'] },
    },
    leaf(
      'domain',
      '^src/domain/',
      'The domain (item schema, money, validation) depends on no other part of the app.',
    ),
    leaf(
      'config',
      '^src/(config\\.ts$|config/)',
      'Settings are read before anything else loads, so they import nothing of the app.',
    ),
    leaf(
      'util',
      '^src/util/',
      'util holds small generic helpers any part may use, so it depends on no part of the app.',
    ),
    {
      name: 'client-ships-alone',
      severity: 'error',
      comment:
        'The client (the package export) runs in programs that load nothing of the server: at run time it ' +
        'imports only its own modules.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-types-from-wire-formats',
      severity: 'error',
      comment:
        'The client is typed from the schemas the server serializes with, so that its types cannot drift: ' +
        'type-only imports of the wire formats (domain, forms, the sync API under http/routes/admin) and nothing ' +
        'else of the server (services, store, config...): what it shares with them sits in a leaf.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/(client|domain|forms|http/routes/admin)/' },
    },
    {
      name: 'demo-only-from-the-top',
      severity: 'error',
      comment:
        'The demo data is loaded by `serve --demo` and nothing else: only the composition root and the CLI ' +
        'import it, never a layer below (the API examples use src/forms/example-dispensary.ts).',
      from: { path: '^src/', pathNot: ['^src/(demo|cli)/', COMPOSITION_ROOT] },
      to: { path: '^src/demo/' },
    },
    // The request side, bottom up: http/pipeline (every answer's headers, records, limits, errors, the
    // read lane), then forms/ (each request form's mapping and transport, built on the pipeline), then
    // http/routes (the routes that are not a form's: the sync API, pages, docs, the OpenAPI document),
    // then server/ (the composition root), then cli/.
    {
      name: 'pipeline-knows-no-form',
      severity: 'error',
      comment:
        'The request pipeline serves every form alike: what it needs of a form (a plain read) is handed ' +
        'to it by the composition root, so it imports no form, route or part above it.',
      from: { path: '^src/http/pipeline/' },
      to: { path: '^src/(forms|http/routes|server|cli)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'forms-build-on-the-pipeline',
      severity: 'error',
      comment:
        'A request form is a mapping plus its transport over the request pipeline; it loads no route of ' +
        'http/routes and nothing of the composition root.',
      from: { path: '^src/forms/' },
      to: { path: '^src/(http/routes|server|cli)/' },
    },
    {
      name: 'routes-below-the-root',
      severity: 'error',
      comment: 'Routes are registered by the composition root; they do not load it or the CLI.',
      from: { path: '^src/http/' },
      to: { path: '^src/(server|cli)/' },
    },
    {
      name: 'root-below-the-cli',
      severity: 'error',
      comment: 'The CLI starts the server; the server never loads the CLI.',
      from: { path: COMPOSITION_ROOT },
      to: { path: '^src/cli/' },
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
