/**
 * Example requests and answers for the OpenAPI document, in the shapes the schemas describe (a test
 * validates every example against its schema). They show the example dispensary, which a server
 * started with --demo loads, so that "try it" there answers them.
 */
import { EXAMPLE_DISPENSARY, EXAMPLE_STORE } from './example-dispensary.js';

const { username, password, token } = EXAMPLE_DISPENSARY;
const credentials = { username, password, collective_token: token };

export const FORM_A_MENU_REQUEST_EXAMPLE = { ...credentials, active: true };
export const FORM_A_STORE_REQUEST_EXAMPLE = { ...credentials };
export const FORM_A_INVENTORY_REQUEST_EXAMPLE = { ...credentials, since: '2026-11-25T12:00:00Z' };
export const FORM_A_CHANGES_REQUEST_EXAMPLE = { ...credentials, after: '0000000000001234', limit: 100 };
export const FORM_A_EVENTS_REQUEST_EXAMPLE = { ...credentials, after: '0000000000001234' };

/** The example dispensary's store information, as `/store` answers it on a demo server. */
export const STORE_INFO_EXAMPLE = { ...EXAMPLE_STORE, updated_at: '2026-11-25T12:00:00.000Z' };

export const INVENTORY_EXAMPLE = [
  {
    item_id: 1,
    unit: 'gram',
    amount: 1,
    stock: 139,
    in_stock: true,
    updated_at: '2026-11-25T12:03:10.512Z',
  },
  {
    item_id: 1,
    unit: 'ounce',
    amount: 0.125,
    stock: 0,
    in_stock: false,
    updated_at: '2026-11-25T12:04:45.020Z',
  },
];
