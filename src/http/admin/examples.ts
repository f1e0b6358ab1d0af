/** Example requests and answers of the sync API for the OpenAPI document (validated by a test). */
import { STORE_INFO_EXAMPLE } from '../../forms/examples.js';

const { updated_at: _updatedAt, ...storeFields } = STORE_INFO_EXAMPLE;

export const ADMIN_EXAMPLES = {
  createDispensary: { ...storeFields, name: 'Green Leaf Collective', hours: null },
  storeInfoPatch: { phone: '+1 510 555 0199', website: null },
  publish: { published: true, slug: 'demo', show_stock: false },
  issueCredential: { username: 'menu-board' },
  itemPatch: { active: false },
  stock: [
    { item_id: 1, unit: 'gram', amount: 1, stock: 139 },
    { item_id: 1, unit: 'ounce', amount: 0.125, stock: null },
  ],
  dispensary: {
    id: 1,
    name: 'Demo Collective',
    created_at: '2026-11-20T09:00:00.000Z',
    updated_at: '2026-11-25T12:00:00.000Z',
    published: true,
    slug: 'demo',
    show_stock: false,
    store: STORE_INFO_EXAMPLE,
  },
  dispensarySummary: {
    id: 1,
    name: 'Demo Collective',
    items: 12,
    active_items: 11,
    created_at: '2026-11-20T09:00:00.000Z',
    updated_at: '2026-11-25T12:00:00.000Z',
  },
  createdDispensary: {
    id: 2,
    name: 'Green Leaf Collective',
    token: 'dt_9hX2kQ7mVb4RzL1pN8sYc3Fw6JtA0uEg',
    store: { ...STORE_INFO_EXAMPLE, name: 'Green Leaf Collective', hours: null },
  },
  token: { id: 1, token: 'dt_Q3vN8pXz1LmK5sR7tY2wB9cF4hJ6gD0a' },
  credential: {
    username: 'menu-board',
    created_at: '2026-11-25T12:00:00.000Z',
    revoked_at: null,
    expires_at: null,
    last_used_at: '2026-11-25T12:05:00.000Z',
    dispensaries: null,
  },
  issuedCredential: { username: 'menu-board', password: 'kP4w9Zs2QxL7mN1vR8tY3bC6fH0jD5gA' },
  importReport: { dispensary_id: 1, items: 12, active_items: 11, price_entries: 40 },
  upsert: { created: [13], updated: [1, 2] },
  stockReport: { updated: 2 },
  session: {
    admin_key: { name: 'operator', scope: 'all' },
    csrf_token: 'q8Zb2kX1vN4mR7tY0wC3fH6jD9gA5sL2pE8uK1iO4nQ',
    expires_at: '2026-11-26T00:00:00.000Z',
    idle_timeout_seconds: 1800,
  },
  adminKey: {
    name: 'store-3-staff',
    scope: 'dispensary:3',
    created_at: '2026-11-25T12:00:00.000Z',
    revoked_at: null,
    last_used_at: '2026-11-25T12:05:00.000Z',
  },
  createdAdminKey: {
    name: 'store-3-staff',
    scope: 'dispensary:3',
    key: 'mak_X1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v',
  },
  auditEntry: {
    id: 41,
    at: '2026-11-25T12:00:00.000Z',
    actor: 'key:operator',
    dispensary_id: 1,
    action: 'menu.stock',
    detail: { updated: 2 },
  },
  usage: { username: 'menu-board', hour: '2026-11-25T12:00:00.000Z', requests: 314 },
  importResult: {
    dry_run: true,
    applied: false,
    items: 11,
    active_items: 10,
    price_entries: 37,
    rejected: [{ line: 7, field: 'line 7, price', message: 'must be a number' }],
  },
};
