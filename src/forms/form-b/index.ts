import type { RequestForm } from '../form.js';
import { formBItemFieldAliases, toFormBItem } from './item.js';
import { formBMenu } from './menu.js';
import { formBTransport } from './transport.js';

export const formB: RequestForm = {
  id: 'b',
  title: 'Form B (GET, credentials in headers)',
  itemFieldAliases: formBItemFieldAliases,
  // Form B has no active flag on the wire, so its view of a menu is the active items.
  toWire: (items, { formBNames }) =>
    items.filter((item) => item.active).map((item) => toFormBItem(item, formBNames)),
  transport: formBTransport,
  menu: formBMenu,
};
