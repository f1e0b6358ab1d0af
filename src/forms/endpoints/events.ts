import type { MenuItem } from '../../domain/item.js';
import { accessOf } from '../../services/live-hub.js';
import { decodeCursor } from '../../services/menu-feed.js';
import { changeMapper } from '../common/changes.js';
import { sendEventStream } from '../common/event-stream.js';
import { afterParameter } from './changes.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

const EVENT_STREAM = {
  description:
    'A server-sent event stream: each change as `id: <cursor>`, `event: <type>`, `data: <the change as /changes lists it>`, and a comment line at least every 15 s.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

/** The live stream of the changes /changes lists, as server-sent events, in each form's shape. */
export const eventsEndpoint: PublicEndpoint = {
  name: 'events',
  build: (context) => (form) => {
    const { live } = context;
    const { transport } = form;
    const mapper = changeMapper(form, context);
    const changeItem = form.changeItem?.(context.menus);
    // A form whose items depend on the dispensary now (Form v1's prices) spells each batch as it is
    // sent; the mapping of one spelling is shared by every stream that sends with it.
    const mappers = new WeakMap<(item: MenuItem) => unknown, typeof mapper>();
    const framer = changeItem
      ? (dispensaryId: number) => async () => {
          const itemOf = await changeItem(dispensaryId);
          let found = mappers.get(itemOf);
          if (!found) {
            found = changeMapper(form, context, itemOf);
            mappers.set(itemOf, found);
          }
          return found.frame;
        }
      : undefined;
    return formRoute(form, context, {
      name: 'events',
      operationId: 'streamEvents',
      summary: 'Live stream of the menu’s changes',
      description: `${transport.credentialsTravel} A text/event-stream of the changes /changes lists, as they happen (within a fraction of a second, from every server process). Resume with the Last-Event-ID header (or ${transport.spell('after')}): what was missed is sent first. An expired cursor, or one ahead of the feed, gets 410 cursor_expired before any stream opens (read the menu again). A ${transport.spell('limit')} is refused (400): a stream has no page size; page with /changes. The stream ends when the credential is revoked, the token stops working or the dispensary is removed, and for a reader that falls too far behind (resume it).`,
      parameters: afterParameter,
      // A stream has no page size: taking limit and ignoring it answered something else than asked.
      refusedParameters: {
        limit: `An event stream has no page size: it sends every change after the cursor, then each new one as it happens. To read the changes a page at a time, use ${transport.method} ${transport.prefix ?? ''}/changes with ${transport.spell('limit')}.`,
      },
      // A stream is written by hand, not serialized: this only describes it.
      response: EVENT_STREAM as never,
      conditional: false,
      errors: [410],
      handle: (request, reply, granted) => {
        const parameters = transport.parameters(request);
        const lastEventId = request.headers['last-event-id'];
        const resumeAt =
          typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : parameters.after;
        const after = resumeAt === undefined ? undefined : decodeCursor(String(resumeAt));
        return granted((grant) =>
          sendEventStream(request, reply, {
            hub: live.hub,
            feed: live.feed,
            dispensaryId: grant.dispensary.id,
            access: accessOf(grant, transport.credentials(request).token),
            after,
            frame: mapper.frame,
            ...(framer ? { framer: framer(grant.dispensary.id) } : {}),
            maxBacklog: live.maxBacklog,
            headers: live.streamHeaders,
          }),
        );
      },
    });
  },
};
