// The dependency rules of src/ (issue 11, "Dependencies point down"); `npm run check:deps`, part of `npm run lint`.

/** The composition root: the modules that build the server from every part and run its processes. */
const COMPOSITION_ROOT = '^src/server/';

/** A rule that fails the check: no module matching `from` may import one matching `to`. */
function rule(name, comment, from, to) {
  return { name, severity: 'error', comment, from, to };
}

/** The rule that the modules matching `path` import nothing of src/ but each other. */
function leaf(name, path, comment) {
  return rule(`${name}-is-a-leaf`, comment, { path }, { path: '^src/', pathNot: path });
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    rule(
      'no-circular',
      'A cycle, type-only imports included, ties modules so neither can change or load alone.',
      { path: '^src/' },
      { circular: true },
    ),
    rule(
      'lower-layers-not-on-edges',
      'services, store, domain, auth and infra sit below the request forms, the HTTP server and the CLI; ' +
        'type-only imports are allowed, runtime imports are not.',
      { path: '^src/(services|store|domain|auth|infra)/' },
      { path: '^src/(forms|http|server|cli)/', dependencyTypesNot: ['type-only'] },
    ),
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
    rule(
      'client-ships-alone',
      'The client (the package export) runs in programs that load nothing of the server: at run time it ' +
        'imports only its own modules.',
      { path: '^src/client/' },
      { path: '^src/', pathNot: '^src/client/', dependencyTypesNot: ['type-only'] },
    ),
    rule(
      'client-types-from-wire-formats',
      'The client is typed from the schemas the server serializes with, so that its types cannot drift: ' +
        'type-only imports of the wire formats (domain, forms, the sync API under http/routes/admin) and nothing ' +
        'else of the server (services, store, config...): what it shares with them sits in a leaf.',
      { path: '^src/client/' },
      { path: '^src/', pathNot: '^src/(client|domain|forms|http/routes/admin)/' },
    ),
    rule(
      'demo-only-from-the-top',
      'The demo data is loaded by `serve --demo` and nothing else: only the composition root and the CLI ' +
        'import it, never a layer below (the API examples use src/forms/example-dispensary.ts).',
      { path: '^src/', pathNot: ['^src/(demo|cli)/', COMPOSITION_ROOT] },
      { path: '^src/demo/' },
    ),
    // The request side, bottom up: http/pipeline (every answer's headers, records, limits, errors, the
    // read lane), then forms/ (each request form's mapping and transport, built on the pipeline), then
    // http/routes (the routes that are not a form's: the sync API, pages, docs, the OpenAPI document),
    // then server/ (the composition root), then cli/.
    rule(
      'pipeline-knows-no-form',
      'The request pipeline serves every form alike: what it needs of a form (a plain read) is handed ' +
        'to it by the composition root, so it imports no form, route or part above it.',
      { path: '^src/http/pipeline/' },
      { path: '^src/(forms|http/routes|server|cli)/', dependencyTypesNot: ['type-only'] },
    ),
    rule(
      'forms-build-on-the-pipeline',
      'A request form is a mapping plus its transport over the request pipeline; it loads no route of ' +
        'http/routes and nothing of the composition root.',
      { path: '^src/forms/' },
      { path: '^src/(http/routes|server|cli)/' },
    ),
    rule(
      'routes-below-the-root',
      'Routes are registered by the composition root; they do not load it or the CLI.',
      { path: '^src/http/' },
      { path: '^src/(server|cli)/' },
    ),
    rule(
      'root-below-the-cli',
      'The CLI starts the server; the server never loads the CLI.',
      { path: COMPOSITION_ROOT },
      { path: '^src/cli/' },
    ),
    rule(
      'not-to-unresolvable',
      'An import that resolves to nothing is a typo or a missing dependency.',
      {},
      { couldNotResolve: true },
    ),
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
