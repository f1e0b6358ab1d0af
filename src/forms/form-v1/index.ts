import { toItemRead } from '../../domain/item-reads.js';
import type { RequestForm } from '../form.js';
import { v1ChangeItem } from './change-item.js';
import { v1Menu } from './menu.js';
import { v1Transport } from './transport.js';

export const formV1: RequestForm = {
  id: 'v1',
  title: 'Form v1 (GET /v1, HTTP Basic and Dispensary-Token)',
  // The canonical names: nothing to alias.
  itemFieldAliases: {},
  // Exports: the items as written, with the derived figures; effective prices belong to a read's instant.
  toWire: (items) => items.map(toItemRead),
  transport: v1Transport,
  menu: v1Menu,
  changeItem: v1ChangeItem,
};
