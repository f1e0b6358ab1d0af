/** How the editor names the item's fields and finds the server's message for each. */

import type { ApiError } from '../../api.js';

/** Words that read better than the field's name with its underscores as spaces. */
const SPELLED: Readonly<Record<string, string>> = {
  url: 'URL',
  coa_url: 'Certificate (COA) URL',
  alt: 'Alt text',
  med_price: 'Medical price',
  sku: 'SKU',
};

export const labelOf = (name: string) =>
  SPELLED[name] ?? (name.charAt(0).toUpperCase() + name.slice(1)).replaceAll('_', ' ');

/** A label inside a phrase ("Image 2 alt text"), an acronym kept as it is ("Image 2 URL"). */
export const wordOf = (name: string) => {
  const label = labelOf(name);
  return label.charAt(1) === label.charAt(1).toUpperCase()
    ? label
    : label.charAt(0).toLowerCase() + label.slice(1);
};

/** The server's message for the value at `path` (`strain.type`, `cannabinoids[2].unit`), if any. */
export type MessageAt = (path: string) => string | undefined;

/**
 * The item's problems answer at its own paths (an item patch) or under `[0]` (an item added by a
 * partial sync of one item); a message is shown at the field its path names exactly.
 */
export function messagesOf(failure: ApiError | undefined): MessageAt {
  return (path) =>
    failure?.problems.find((problem) => problem.field === path || problem.field === `[0].${path}`)?.message;
}

/** An id fit for an element from a path (`cannabinoids[2].unit` → `cannabinoids-2-unit`). */
export const idOf = (path: string) => path.replace(/[^a-zA-Z0-9_]+/g, '-').replace(/-$/, '');
