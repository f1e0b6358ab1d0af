/**
 * Example requests and answers for the OpenAPI document, in the shapes the schemas describe (a test
 * validates every example against its schema). They use the demo data, so that "try it" on a server
 * started with --demo answers them.
 */
import { DEMO } from '../demo/seed.js';
import type { FormBNames } from './form.js';

const credentials = { username: DEMO.username, password: DEMO.password, collective_token: DEMO.token };

export const FORM_A_MENU_REQUEST_EXAMPLE = { ...credentials, active: true };
export const FORM_A_STORE_REQUEST_EXAMPLE = { ...credentials };
export const FORM_A_INVENTORY_REQUEST_EXAMPLE = { ...credentials, since: '2026-11-25T12:00:00Z' };

export const FORM_A_ITEM_EXAMPLE = {
  id: 1,
  name: 'Blue Dream',
  brand_name: 'Emerald Farms',
  product_type: 'Flower',
  product_subtype: 'Hybrid',
  description: 'Sativa-leaning hybrid with sweet berry aroma; a daytime classic.',
  product_prices: [
    { unit: 'gram', amount: 1, price: 12 },
    { unit: 'ounce', amount: 0.125, price: 38 },
  ],
  active: true,
};

const formBPrices = [
  { unit: 'gram', amount: 1, price: 12, stock: 140 },
  { unit: 'ounce', amount: 0.125, price: 38, stock: 44 },
];

/** A Form B item with the field spellings of `names`, in the schema's field order. */
export function formBItemExample(names: FormBNames): Record<string, unknown> {
  return {
    id: 1,
    name: 'Blue Dream',
    description: 'Sativa-leaning hybrid with sweet berry aroma; a daytime classic.',
    image: 'https://images.example.com/menu/blue-dream.jpg',
    type: 'Flower',
    subtype: 'Hybrid',
    ...(names === 'sample' ? {} : { brand: 'Emerald Farms' }),
    ...(names === 'table' ? {} : { brand_name: 'Emerald Farms' }),
    cbd: 0.1,
    cbn: null,
    thc: 21.5,
    total_thc: null,
    total_cbd: null,
    flavors: ['Berry', 'Sweet', 'Earthy'],
    effects: ['Creative', 'Uplifted', 'Relaxed'],
    conditions: ['Stress', 'Depression'],
    ...(names === 'sample' ? {} : { variants: formBPrices }),
    ...(names === 'table' ? {} : { prices: formBPrices }),
  };
}

const day = (open: string, close: string) => ({ open, close, closed: false });

export const STORE_INFO_EXAMPLE = {
  name: 'Demo Collective',
  address: '1200 Harbor Blvd',
  city: 'Oakland',
  state: 'CA',
  postal_code: '94607',
  country: 'US',
  phone: '+1 510 555 0100',
  email: 'hello@demo-collective.example',
  website: 'https://demo-collective.example',
  timezone: 'America/Los_Angeles',
  license_number: 'C10-0000001-LIC',
  currency: 'USD',
  hours: {
    monday: day('09:00', '21:00'),
    tuesday: day('09:00', '21:00'),
    wednesday: day('09:00', '21:00'),
    thursday: day('09:00', '21:00'),
    friday: day('09:00', '23:00'),
    saturday: day('10:00', '02:00'),
    sunday: { open: null, close: null, closed: true },
  },
  logo: null,
  updated_at: '2026-11-25T12:00:00.000Z',
};

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
