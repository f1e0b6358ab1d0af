import type { FastifyPluginAsync } from 'fastify';
import type { FormBNames } from '../config.js';
import type { MenuItem } from '../domain/item.js';
import type { FieldAliases } from '../domain/validate-item.js';
import type { AccessService } from '../services/access.js';
import type { MenuReader } from '../services/menu-reader.js';
import type { MenuSnapshots } from '../services/menu-snapshots.js';

/** Which of Form B's two documented spellings to send (see README: "Form B field names"). */
export type { FormBNames };

export interface FormContext {
  access: AccessService;
  menus: MenuReader;
  /** Serialized answers per dispensary, kept until the next change (menus, store information). */
  snapshots: MenuSnapshots;
  formBNames: FormBNames;
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
  routes: FastifyPluginAsync<FormContext>;
}
