import { Type } from 'typebox';
import { ItemReadSchema } from '../../../domain/item-reads.js';
import { parseItemRef } from '../../../domain/item-ref.js';
import { pricedItemRecord } from '../../../domain/priced-item.js';
import { importLabResult } from '../../../services/lab-results.js';
import { lineOf } from '../../../services/menus.js';
import { importReportRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf, pathId } from './auth.js';
import { LabResultBody, LabResultOut } from './lab-result.schemas.js';
import {
  CanonicalItem,
  ExportQuerystring,
  ImportReportOut,
  ImportResultOut,
  ItemParams,
  ItemPatchBody,
  ItemsBody,
  MenuFileQuerystring,
  PricedItem,
  StockBody,
  StockOut,
  UpsertOut,
} from './menu.schemas.js';
import { adminPlugin, adminRoutes } from './route.js';
import { IdParams } from './shared.schemas.js';

const tags = ['Sync API: menu and inventory'];

/** The item of the path (`:item_id`; the route schema has checked it is an id or `ext:` and an external_id). */
const itemOf = (request: { params: { item_id: string } }) => parseItemRef(request.params.item_id)!;

export const menuRoutes = adminPlugin(tags, async (needs, { menus, specials }, { write }, app) => {
  needs('read').read('/dispensaries/:id/menu', {
    operationId: 'getMenu',
    summary:
      'Read the whole menu (canonical items, active and inactive, with derived figures and effective prices now)',
    description:
      'Read-only figures derived from the fields: the headline potency, and on each price entry net_weight_g and price_per_gram, effective_price (the price people pay now: the best special that applies, or price) and special (the special it comes from; null when none applies). Sent back in a write, they are ignored.',
    schema: { params: IdParams, response: { 200: Type.Array(PricedItem) } },
    run: async (request) => {
      const id = pathId(request);
      const items = await menus.items(id);
      const pricing = await specials.pricing(id);
      return items.map((item) => pricedItemRecord(item, pricing));
    },
  });

  needs('menu').write('PUT', '/dispensaries/:id/menu', {
    operationId: 'replaceMenu',
    summary: 'Full sync: replace the whole menu atomically',
    schema: { params: IdParams, body: ItemsBody, response: { 200: ImportReportOut } },
    run: async (request) => {
      const id = pathId(request);
      const report = await menus.replace(id, menus.validate(request.body), false, actorOf(request));
      return importReportRecord(report);
    },
  });

  // A menu file as it is, whatever its type says (CSV, or JSON as text or as JSON): ?format decides,
  // so that a file that is not valid JSON still gets its dry run. Only this route reads bodies so;
  // any other type is the app's to refuse (src/http/pipeline/body-parsers.ts).
  await app.register(async (files) => {
    files.removeContentTypeParser('application/json');
    files.addContentTypeParser(
      ['text/csv', 'text/plain', 'application/json'],
      { parseAs: 'string' },
      (_request, body, done) => done(null, body),
    );
    const needsHere = adminRoutes(files, write, tags);
    needsHere('menu').write('POST', '/dispensaries/:id/menu/import', {
      operationId: 'importMenuFile',
      summary: 'Import a menu file (CSV or JSON): check it (dry_run=true), or replace the whole menu with it',
      description:
        'The body is the file: text/csv, text/plain or application/json. A dry run answers every problem with its CSV line (or JSON index) and the counts of what passed; an apply with any problem is refused with 400 and changes nothing, else it replaces the menu in one transaction, as PUT /menu does. The same rules as `menu-api menu import [--dry-run]`.',
      schema: { params: IdParams, querystring: MenuFileQuerystring, response: { 200: ImportResultOut } },
      run: async (request) => {
        const id = pathId(request);
        const { format, dry_run } = request.query;
        // No body schema: the parser above hands the file over as a string.
        const text = typeof request.body === 'string' ? request.body : '';
        const dryRun = dry_run === 'true';
        const { report, problems } = await menus.importFile(id, text, format, dryRun, actorOf(request));
        return {
          dry_run: dryRun,
          applied: !dryRun,
          items: report.items,
          active_items: report.activeItems,
          price_entries: report.priceEntries,
          rejected: problems.map((problem) => ({
            line: lineOf(problem.field) ?? indexLine(problem.field),
            field: problem.field,
            message: problem.message,
          })),
        };
      },
    });
  });

  needs('read').read('/dispensaries/:id/menu/export', {
    operationId: 'exportMenuFile',
    summary: 'Export the menu as a file: canonical CSV or JSON (what import reads back)',
    produces: ['text/csv', 'application/json'],
    schema: {
      params: IdParams,
      querystring: ExportQuerystring,
      response: {
        200: {
          description: 'The file (Content-Disposition: attachment).',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/json': { schema: Type.Array(CanonicalItem) },
          },
        },
      },
    },
    run: async (request, reply) => {
      const id = pathId(request);
      const { format } = request.query;
      const text = await menus.export(id, 'canonical', format);
      return reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="menu-${id}.${format}"`)
        .send(text);
    },
  });

  needs('menu').write('PATCH', '/dispensaries/:id/menu/items', {
    operationId: 'upsertMenuItems',
    summary: 'Partial sync: create or replace items by id (or, without one, by external_id)',
    schema: { params: IdParams, body: ItemsBody, response: { 200: UpsertOut } },
    run: (request) => menus.upsert(pathId(request), request.body, actorOf(request)),
  });

  needs('menu').write('PATCH', '/dispensaries/:id/menu/items/:item_id', {
    operationId: 'patchMenuItem',
    summary: 'Change some fields of one item, such as active (the item by id, or ext: and its external_id)',
    schema: { params: ItemParams, body: ItemPatchBody, response: { 200: ItemReadSchema } },
    run: (request) => menus.patchItem(pathId(request), itemOf(request), request.body, actorOf(request)),
  });

  needs('menu').write('DELETE', '/dispensaries/:id/menu/items/:item_id', {
    operationId: 'deleteMenuItem',
    summary: 'Delete one item (by id, or ext: and its external_id)',
    schema: { params: ItemParams, response: noContent('Deleted.') },
    run: (request) => menus.deleteItem(pathId(request), itemOf(request), actorOf(request)),
  });

  needs('menu').write('POST', '/dispensaries/:id/menu/items/:item_id/lab-result', {
    operationId: 'importLabResult',
    summary: 'Import an OpenTHC lab result onto one item: its cannabinoids, terpenes and batch',
    description:
      "The body is an OpenTHC Lab_Result document. Its cannabinoid and terpene metrics (by lab_metric_id, stub or name) replace the item's lists they have entries for; the lab's license and the certificate (an http(s) URL) fill the batch. The result passes the item's validation and is written in one transaction, a change on the feed and in the audit log. Metrics not mapped are answered in skipped, with the reason.",
    schema: { params: ItemParams, body: LabResultBody, response: { 200: LabResultOut } },
    run: (request) =>
      importLabResult(menus, pathId(request), itemOf(request), request.body, actorOf(request)),
  });

  needs('stock').write('PATCH', '/dispensaries/:id/inventory', {
    operationId: 'setStockLevels',
    summary: 'Set many stock levels in one transaction',
    schema: { params: IdParams, body: StockBody, response: { 200: StockOut } },
    run: (request) => menus.setStock(pathId(request), request.body, actorOf(request)),
  });
});

/** A JSON problem's item (`[4].price`) as a 1-based position, like a line. */
function indexLine(field: string): number | null {
  const match = /^\[(\d+)\]/.exec(field);
  return match ? Number(match[1]) + 1 : null;
}
