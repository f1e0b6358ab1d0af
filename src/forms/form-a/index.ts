import type { RequestForm } from '../form.js';
import { formAItemFieldAliases, toFormAItem } from './item.js';
import { formAMenu } from './menu.js';
import { formATransport } from './transport.js';

export const formA: RequestForm = {
  id: 'a',
  title: 'Form A (POST, credentials in the JSON body)',
  itemFieldAliases: formAItemFieldAliases,
  toWire: (items) => items.map(toFormAItem),
  transport: formATransport,
  menu: formAMenu,
};
