import type { RequestForm } from '../form.js';
import { toV1Item } from './item.js';
import { v1Menu } from './menu.js';
import { v1Transport } from './transport.js';

export const formV1: RequestForm = {
  id: 'v1',
  title: 'Form v1 (GET /v1, HTTP Basic and Dispensary-Token)',
  // The canonical names: nothing to alias.
  itemFieldAliases: {},
  toWire: (items) => items.map(toV1Item),
  transport: v1Transport,
  menu: v1Menu,
};
