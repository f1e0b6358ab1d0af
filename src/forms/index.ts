import type { FieldAliases } from '../domain/validate-item.js';
import type { MenuForms } from '../services/menus.js';
import type { RequestForm } from './form.js';
import { formA } from './form-a/index.js';
import { formB } from './form-b/index.js';
import { formV1 } from './form-v1/index.js';

/** Every request form the server speaks. A new form is a new folder and one line here. */
export const FORMS: readonly RequestForm[] = [formA, formB, formV1];

export function findForm(id: string): RequestForm | undefined {
  return FORMS.find((form) => form.id === id.toLowerCase());
}

/** Every form's item field spellings, so an import accepts any of them beside the canonical names. */
export const ALL_ITEM_FIELD_ALIASES: FieldAliases = Object.assign(
  {},
  ...FORMS.map((form) => form.itemFieldAliases),
);

/** The forms as the menu service sees them (it may not import them: they sit above it). */
export const MENU_FORMS: MenuForms = {
  aliases: ALL_ITEM_FIELD_ALIASES,
  ids: FORMS.map((form) => form.id),
  toWire: (formId, items, formBNames) => findForm(formId)?.toWire(items, { formBNames }),
};
