import type { RequestForm } from '../form.js';
import { formAItemFieldAliases, toFormAItem } from './item.js';
import { formARoutes } from './routes.js';

export const formA: RequestForm = {
  id: 'a',
  title: 'Form A (POST, credentials in the JSON body)',
  itemFieldAliases: formAItemFieldAliases,
  toWire: (items) => items.map(toFormAItem),
  routes: formARoutes,
};
