import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/cli.js';

/**
 * openapi.json as a typed client sees it (issue 29): openapi-typescript generates the types a client
 * such as openapi-fetch is written against, and TypeScript (`strict`) compiles programs against them.
 * Every documented request body and JSON answer is used as the type it is documented with; a misspelt
 * field, a value of the wrong type and an id sent as text must each fail to compile, as the server
 * refuses each of them.
 */
type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The helpers every program starts with: the JSON body of a request, of an answer, the path parameters. */
const PRELUDE = `import type { components, paths } from './api.js';
type Operation<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
type RequestBody<P extends keyof paths, M extends keyof paths[P]> =
  NonNullable<Operation<P, M>> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> =
  NonNullable<Operation<P, M>> extends { responses: { [status in S]: { content: { 'application/json': infer B } } } } ? B : never;
type PathParameters<P extends keyof paths, M extends keyof paths[P]> =
  NonNullable<Operation<P, M>> extends { parameters: { path: infer X } } ? X : never;
type QueryParameters<P extends keyof paths, M extends keyof paths[P]> =
  NonNullable<Operation<P, M>> extends { parameters: { query?: infer X } } ? X : never;
export type Schemas = components['schemas'];
`;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: [],
  noUnusedLocals: false,
};

/** Every documented request body and 2xx JSON answer, each declared as the type the document gives it. */
function examplesProgram(document: Json): { code: string; count: number } {
  const lines: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const at = `${JSON.stringify(path)}, ${JSON.stringify(method)}`;
      const body = (operation as Json).requestBody as Json | undefined;
      const example = ((body?.content as Record<string, Json> | undefined)?.['application/json'] as Json)
        ?.example;
      if (example !== undefined)
        lines.push(`export const body${lines.length}: RequestBody<${at}> = ${JSON.stringify(example)};`);
      for (const [status, response] of Object.entries(
        (operation as Json).responses as Record<string, Json>,
      )) {
        if (!status.startsWith('2') || typeof response.$ref === 'string') continue;
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        if (media?.example !== undefined)
          lines.push(
            `export const answer${lines.length}: Answer<${at}, ${status}> = ${JSON.stringify(media.example)};`,
          );
      }
    }
  }
  return { code: lines.join('\n'), count: lines.length };
}

/** Uses of the sync API a client writes, each of which must compile. */
const FIELD_BY_FIELD = `
  const store: RequestBody<'/admin/v1/dispensaries/{id}', 'patch'> = {
    phone: '+1 510 555 0199', website: null, published: true, slug: 'demo', show_stock: false,
    hours: { monday: { open: '09:00', close: '17:00' }, sunday: { closed: true } },
  };
  const created: RequestBody<'/admin/v1/dispensaries', 'post'> = { name: 'Green Leaf', city: 'Oakland' };
  const where: PathParameters<'/admin/v1/dispensaries/{id}', 'patch'> = { id: 1 };
  const item: PathParameters<'/admin/v1/dispensaries/{id}/menu/items/{item_id}', 'patch'> = { id: 1, item_id: 2 };
  const deliveries: QueryParameters<'/admin/v1/webhooks/{id}/deliveries', 'get'> = { limit: 50 };
  const audit: QueryParameters<'/admin/v1/audit', 'get'> = { dispensary_id: 1, limit: 100 };
  const grace: RequestBody<'/admin/v1/dispensaries/{id}/rotate-token', 'post'> = { grace_seconds: 0 };
  const named: [Schemas['Dispensary'], Schemas['DispensarySummary'], Schemas['CredentialSummary'],
    Schemas['AdminKeySummary'], Schemas['AuditEntry'], Schemas['UsageCount'], Schemas['WebhookSummary'],
    Schemas['WebhookDelivery'], Schemas['FormAChangePage'], Schemas['FormBChangePage'],
    Schemas['DispensaryPatch'], Schemas['WebhookInput']] | undefined = undefined;
  const id: number = ({} as Schemas['Dispensary']).id;
  export { store, created, where, item, deliveries, audit, grace, named, id };`;

/** Mistakes the server refuses, each of which must fail to compile: [what, code, the compiler's complaint]. */
const MISTAKES: [string, string, RegExp][] = [
  [
    'a misspelt field of PATCH /admin/v1/dispensaries/{id}',
    `const body: RequestBody<'/admin/v1/dispensaries/{id}', 'patch'> = { phnoe: '+1 510 555 0199' };`,
    /'phnoe' does not exist/,
  ],
  [
    'a misspelt field of POST /admin/v1/dispensaries',
    `const body: RequestBody<'/admin/v1/dispensaries', 'post'> = { name: 'Green Leaf', phnoe: '+1 510 555 0199' };`,
    /'phnoe' does not exist/,
  ],
  [
    'published: "yes"',
    `const body: RequestBody<'/admin/v1/dispensaries/{id}', 'patch'> = { published: 'yes' };`,
    /'string' is not assignable to type 'boolean/,
  ],
  [
    'a dispensary id as text',
    `const body: PathParameters<'/admin/v1/dispensaries/{id}', 'patch'> = { id: '1' };`,
    /Type 'string' is not assignable to type 'number'/,
  ],
  [
    'a misspelt item field',
    `const body: RequestBody<'/admin/v1/dispensaries/{id}/menu', 'put'> = [{ name: 'Blue Dream', product_type: 'Flower', brnad: 'Emerald' }];`,
    /'brnad' does not exist/,
  ],
];

describe('the OpenAPI document as openapi-typescript types, compiled with tsc --strict', () => {
  let folder: string;
  let examples: number;
  /** Each program's diagnostics, as text, by its name. */
  const diagnostics = new Map<string, string[]>();

  beforeAll(async () => {
    const document = JSON.parse(readFileSync(join(REPOSITORY, 'openapi.json'), 'utf8')) as Json;
    folder = mkdtempSync(join(tmpdir(), 'menu-api-types-'));
    writeFileSync(join(folder, 'package.json'), '{"type": "module"}\n');
    writeFileSync(join(folder, 'api.d.ts'), astToString(await openapiTS(document as never)));
    const fromExamples = examplesProgram(document);
    examples = fromExamples.count;
    const programs: Record<string, string> = {
      examples: fromExamples.code,
      fields: FIELD_BY_FIELD,
      ...Object.fromEntries(
        MISTAKES.map(([, code], index) => [`mistake${index}`, `${code}\nexport { body };`]),
      ),
    };
    // One program over every file: the generated types are read and checked once.
    const files = Object.fromEntries(
      Object.entries(programs).map(([name, code]) => {
        const file = join(folder, `${name}.ts`);
        writeFileSync(file, `${PRELUDE}\n${code}\nexport {};\n`);
        return [name, file];
      }),
    );
    const program = ts.createProgram(Object.values(files), COMPILER_OPTIONS);
    for (const [name, file] of Object.entries(files)) {
      const found = ts.getPreEmitDiagnostics(program, program.getSourceFile(file));
      diagnostics.set(
        name,
        found.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
      );
    }
  }, 120_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('compiles every documented request body and JSON answer as the type the document gives it', () => {
    expect(examples).toBeGreaterThan(40);
    expect(diagnostics.get('examples')).toEqual([]);
  });

  it('types the sync API bodies field by field, ids and counts as numbers, the shared shapes by name', () => {
    expect(diagnostics.get('fields')).toEqual([]);
  });

  it.each(MISTAKES.map(([what, , complaint], index) => [what, index, complaint] as const))(
    'refuses %s at compile time',
    (_what, index, complaint) => {
      expect(diagnostics.get(`mistake${index}`)!.join('\n')).toMatch(complaint);
    },
  );
});
