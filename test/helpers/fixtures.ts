/**
 * The canonical item the tests know best, in canonical names: every optional field a form renames
 * is set, stock is tracked on one price entry and zero on the other. Tests that need a variant spread
 * it and override the fields they care about.
 */
export const BLUE_DREAM = {
  id: 3,
  name: 'Blue Dream',
  brand: 'Emerald Farms',
  product_type: 'Flower',
  product_subtype: 'Hybrid',
  description: 'Berry aroma.',
  image: 'https://img.example/blue.jpg',
  thc: 21.5,
  cbd: 0.1,
  flavors: ['Berry'],
  effects: ['Happy'],
  conditions: ['Stress'],
  prices: [
    { unit: 'gram', amount: 1, price: 12, stock: 10 },
    { unit: 'ounce', amount: 0.125, price: 38.5, stock: 0 },
  ],
};

/** A dispensary's store information before anyone sets it: every field null, the currency USD. */
export const UNSET_STORE_INFO = {
  address: null,
  city: null,
  state: null,
  postal_code: null,
  country: null,
  phone: null,
  email: null,
  website: null,
  timezone: null,
  license_number: null,
  currency: 'USD',
  hours: null,
  logo: null,
};
