import { type TArray, Type } from 'typebox';
import { INTEGER_TEXT } from '../../http/pipeline/document-notes.js';
import { noStore } from '../../http/pipeline/snapshot-reply.js';
import { decodeCursor, MAX_CHANGES_LIMIT } from '../../services/menu-feed.js';
import {
  changeMapper,
  changeSchema,
  changesPageSchema,
  dispensaryChanges,
  parseLimit,
} from '../common/changes.js';
import { menuOf, type RequestForm } from '../form.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/** `after`: the cursor to continue after, in /changes and /events alike. */
export const afterParameter = {
  after: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'The cursor to continue after: a next_cursor, a Menu-Cursor header or an event id. Left out: from the oldest change kept.',
    }),
  ),
};

const LIMIT_DESCRIPTION = 'Most changes to return, 1 to 1,000 (default 100).';

/**
 * `after` and `limit`: a query string carries text, a JSON body a number. Either way parseLimit checks
 * it and says what is wrong; the document gives the integer a query's text holds.
 */
function changesParameters(form: RequestForm) {
  return {
    ...afterParameter,
    limit: Type.Optional(
      form.transport.method === 'GET'
        ? Type.String({
            maxLength: 16,
            description: LIMIT_DESCRIPTION,
            [INTEGER_TEXT]: { minimum: 1, maximum: MAX_CHANGES_LIMIT },
          })
        : Type.Integer({ description: LIMIT_DESCRIPTION }),
    ),
  };
}

/** The item schema of a form's menu (an array of items). */
export const itemSchemaOf = (form: RequestForm, menu: ReturnType<RequestForm['menu']>) => {
  if (menu.itemSchema) return menu.itemSchema;
  const schema = menu.schema as Partial<TArray>;
  if (!schema.items) throw new Error(`the menu schema of form ${form.id} is not an array`);
  return schema.items;
};

/** The change feed: what entered, changed in or left the active menu after a cursor, in each form's shape. */
export const changesEndpoint: PublicEndpoint = {
  name: 'changes',
  build: (context) => (form) => {
    const { live } = context;
    const { transport } = form;
    const mapper = changeMapper(form, context);
    const changesOf = dispensaryChanges(form, context);
    const menu = menuOf(form, context);
    const item = itemSchemaOf(form, menu);
    return formRoute(form, context, {
      name: 'changes',
      operationId: 'readChanges',
      summary: 'Changes of the menu after a cursor',
      description: `${transport.credentialsTravel} Every change of the active menu and the store information after ${transport.spell('after')} (a Menu-Cursor header of /menu, /store or /inventory, or the last next_cursor), oldest first: item.upserted carries the whole item as /menu lists it, item.removed says why (deleted or deactivated). Changes are kept --change-retention-days (default 7): an older cursor gets 410 cursor_expired (read the menu again), and so does a cursor ahead of the feed, which this server never gave out (a database restored from an older copy).`,
      parameters: changesParameters(form),
      response: changesPageSchema(changeSchema(form, item), item),
      conditional: false,
      errors: [410],
      handle: (request, reply, granted) => {
        const parameters = transport.parameters(request);
        const after = parameters.after === undefined ? undefined : decodeCursor(String(parameters.after));
        const limit = parseLimit(parameters.limit);
        return granted(async ({ dispensary }) => {
          noStore(reply);
          const page = await live.feed.page(dispensary.id, after, limit);
          // A form whose items depend on the dispensary now (Form v1's prices) maps this page afresh.
          const { toWire } = await changesOf(dispensary.id);
          return {
            changes: page.changes.map(toWire),
            next_cursor: mapper.cursor(page.nextCursor),
            has_more: page.hasMore,
          };
        });
      },
    });
  },
};
