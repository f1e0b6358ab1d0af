import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  onRequestHookHandler,
} from 'fastify';
import type { TProperties, TSchema } from 'typebox';
import type { FormBNames } from '../config.js';
import type { MenuItem } from '../domain/item.js';
import type { ItemRef } from '../domain/item-ref.js';
import type { FieldAliases } from '../domain/validate-item.js';
import type { ErrorStatus } from '../http/pipeline/error-responses.js';
import type { LaneHeaders } from '../http/pipeline/lane-headers.js';
import type { AccessService } from '../services/access.js';
import type { AccessRequest } from '../services/access-request.js';
import type { LiveHub } from '../services/live-hub.js';
import type { MenuFeed } from '../services/menu-feed.js';
import type { MenuReader } from '../services/menu-reader.js';
import type { MenuSnapshots, Representation, SnapshotView } from '../services/menu-snapshots.js';

/** Which of Form B's two documented spellings to send (see docs/architecture.md: "Form B field names"). */
export type { FormBNames };

export interface FormContext {
  access: AccessService;
  menus: MenuReader;
  /** Serialized answers per dispensary, kept until the next change (menus, store information). */
  snapshots: MenuSnapshots;
  formBNames: FormBNames;
  /** The live feed (/changes) and its streams (/events). */
  live: LiveContext;
  /** The other processes of `serve --workers N`, which keep menu versions this one does not; else none. */
  peers?: PeerPages;
}

/** A page of a menu version that this process does not keep, asked of the processes that may. */
export interface PeerPageRequest {
  dispensaryId: number;
  /** The menu version the page's cursor reads. */
  version: number;
  /** The menu request's validated parameters, its cursor included. */
  parameters: Readonly<Record<string, unknown>>;
  acceptEncoding?: string | string[];
}

/**
 * The other worker processes of a cluster (src/server/peer-pages.ts): Form v1 keeps the menu versions
 * its cursors read in the memory of the process that gave the cursor out, and a paging's next page may
 * reach another process.
 */
export interface PeerPages {
  /** The page from the process that keeps the version, or undefined when none does. */
  ask(request: PeerPageRequest): Promise<Representation | undefined>;
  /** How this process answers the others' questions: undefined when it does not keep the version. */
  serve(answer: (request: PeerPageRequest) => Promise<Representation | undefined>): void;
}

export interface LiveContext {
  feed: MenuFeed;
  hub: LiveHub;
  /** Events an /events reader may fall behind before it is cut off. */
  maxBacklog: number;
  /**
   * The headers of an answer written past Fastify's reply (an event stream): the stream's own
   * `fields`, what the reply holds already (CORS) and the app's standard headers (the request id,
   * nosniff, the RateLimit fields, `Connection: close` while draining: src/http/pipeline/answer-headers.ts).
   */
  streamHeaders(
    request: FastifyRequest,
    reply: FastifyReply,
    fields: OutgoingHttpHeaders,
  ): OutgoingHttpHeaders;
}

/** The credentials and dispensary token of a request, whichever form carried them (what the access check reads). */
export type RequestCredentials = AccessRequest;

/** What an endpoint reads beside the credentials, to build its request schema in a form's places. */
export interface EndpointRequest {
  /** The endpoint's path without its slash (`menu`, `store`, `inventory`): names its examples. */
  name: string;
  /** The endpoint's own parameters, such as `since`; empty when it needs only the credentials. */
  parameters: TProperties;
}

/**
 * How a form's requests travel: the same for every public endpoint, so that an endpoint written
 * once (src/forms/endpoints) is served in every form.
 */
export interface FormTransport {
  method: 'GET' | 'POST';
  /**
   * The public endpoints this form serves, by name (`menu`); left out, every one but those served only
   * where named (PublicEndpoint.onlyWhereNamed).
   */
  endpoints?: readonly string[];
  /** Where the form's paths start (`/v1`); left out, at the root (`/menu`). */
  prefix?: string;
  /** The OpenAPI tag of this form's routes. */
  tag: string;
  /** How the OpenAPI document describes the form: its tag, and credentials in headers as security schemes. */
  openApi: {
    tagDescription: string;
    securitySchemes?: Readonly<Record<string, object>>;
    /** Credentials no security scheme describes (body fields): why the form's operations have `security: []`. */
    noSchemeReason?: string;
    /**
     * Request bodies read in more media types than JSON: each listed in the document with the JSON
     * body's fields, as JSON text (`asText`) or as form fields (`asForm`).
     */
    requestBody?: { description: string; asText: readonly string[]; asForm: readonly string[] };
  };
  /** Where the docs say the credentials and token travel: "in the JSON body". */
  credentialsTravel: string;
  /** How the docs spell an endpoint parameter: `since` in a body, `?since=` in a query string. */
  spell(parameter: string): string;
  /** Answers carry a strong `ETag`, and `If-None-Match` is answered with 304. */
  validators: boolean;
  /** The error statuses every endpoint of this form may answer (413 and 415 only where a body is read). */
  errorStatuses: readonly ErrorStatus[];
  /** The route schema's request part: the credentials and the endpoint's parameters in their places. */
  requestSchema(endpoint: EndpointRequest): Pick<FastifySchema, 'body' | 'headers' | 'querystring'>;
  /** The credentials and token of a request its schema has already validated. */
  credentials(request: FastifyRequest): RequestCredentials;
  /** The query parameters an endpoint with these parameters takes (others are refused with 400). */
  queryParameters(parameters: TProperties): readonly string[];
  /** The endpoint parameters of a request its schema has already validated. */
  parameters(request: FastifyRequest): Readonly<Record<string, unknown>>;
  /** Runs before anything else reads the request (Form B refuses repeated credential headers). */
  onRequest?: onRequestHookHandler;
  /** Prepares the scope that holds this form's routes, and only them (Form A's body parsers). */
  prepare?(scope: FastifyInstance): void;
  /**
   * This form's plain menu read, answered by the read lane before routing (src/http/pipeline/read-lane.ts);
   * left out, the form's menu is answered by its route alone. At most one form per method and path.
   */
  plainRead?: PlainRead;
}

/**
 * A menu request the read lane may answer exactly as the form's menu route would: one its checks
 * would certainly pass, told from the request line, the headers and (for a form whose credentials
 * travel in the body) a small body. Whatever is not plain is left to the route, which says what is
 * wrong. Called on the hottest path there is: allocate nothing beyond what `recognise` returns.
 */
export interface PlainRead<Plain = unknown> {
  /** It reads requests with a query string (from the request's url); else the lane takes none. */
  takesQuery?: boolean;
  /**
   * For a form whose requests carry a body: whether the headers announce a small plain one, which the
   * lane then reads before `recognise` (within `bodyLimit`, the public routes' largest body).
   */
  announcesBody?(headers: LaneHeaders, bodyLimit: number): boolean;
  /**
   * What the lane needs of a plain request (`headers`: the ones it reads, each sent once; `body`: its
   * text, when one was read), or undefined.
   */
  recognise(request: IncomingMessage, headers: LaneHeaders, body: string | undefined): Plain | undefined;
  /** The credentials and token of a recognised request. */
  credentials(plain: Plain): RequestCredentials;
  /** The menu parameters of a recognised request, as FormMenu.view takes them. */
  parameters(plain: Plain): Readonly<Record<string, unknown>>;
}

/** How a form's menu endpoint answers: which parameters it takes and which snapshot it sends. */
export interface FormMenu {
  /** Parameters of the menu request beside the credentials (Form A's `active`). */
  parameters: TProperties;
  /** What the docs add about the items listed, after where the credentials travel. */
  note?: string;
  /** The menu's response schema. */
  schema: TSchema;
  /** The schema of one item, when the menu's schema is not an array of them (Form v1's page object). */
  itemSchema?: TSchema;
  /** Error statuses the menu answers beside the form's own (Form v1's 410 for a paging it cannot go on). */
  errors?: readonly ErrorStatus[];
  /** The snapshot that answers a request with these (validated) parameters. */
  view(parameters: Readonly<Record<string, unknown>>): SnapshotView;
  /**
   * The snapshot of one item in the form's item shape (`/menu/{item_id}`): needed by a form that
   * serves that endpoint. Its read fails with not_found when the menu has no such item.
   */
  item?(ref: ItemRef): SnapshotView;
}

/**
 * A request form: how requests arrive and how items are spelled on the wire.
 * Each form lives in its own folder and depends only on the canonical model and the services.
 */
export interface RequestForm {
  /** Short name used by options and exports. */
  id: string;
  title: string;
  /** This form's item field names that differ from the canonical ones, so its exports import back. */
  itemFieldAliases: FieldAliases;
  /** The items in this form's wire shape, as its menu endpoint would send them. */
  toWire(items: readonly MenuItem[], context: Pick<FormContext, 'formBNames'>): unknown[];
  transport: FormTransport;
  /** The menu endpoint in this form's item shape: call `menuOf`, which builds it once per app. */
  menu(context: FormContext): FormMenu;
  /**
   * How a change's item is spelled for a dispensary now, when the form's item depends on more than the
   * item (Form v1's effective prices): for its /changes, /events and webhooks; left out, toWire.
   */
  changeItem?(menus: MenuReader): (dispensaryId: number) => Promise<(item: MenuItem) => unknown>;
}

/** Each app's (context's) menus, by form. */
const builtMenus = new WeakMap<FormContext, Map<RequestForm, FormMenu>>();

/**
 * A form's menu for an app, built on first use and shared by everything that reads it (the menu and
 * changes endpoints, the read lane): its snapshot views are declared, and their serializers compiled,
 * once.
 */
export function menuOf(form: RequestForm, context: FormContext): FormMenu {
  let menus = builtMenus.get(context);
  if (!menus) {
    menus = new Map();
    builtMenus.set(context, menus);
  }
  let menu = menus.get(form);
  if (!menu) {
    menu = form.menu(context);
    menus.set(form, menu);
  }
  return menu;
}
