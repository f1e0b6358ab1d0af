import type { FieldProblem } from './validate-item.js';

/** Whether and where a dispensary's public pages (/m/SLUG, /board/SLUG, the embed) are served. */
export interface Publishing {
  published: boolean;
  /** Null until the dispensary is first published. */
  slug: string | null;
  /** Pages show stock quantities (not only "in stock" or "sold out"); off by default. */
  showStock: boolean;
  /**
   * A special's regular price shown struck through beside the price people pay; on by default.
   * Massachusetts' regulator treats sale and strike-through prices on online menus as prohibited
   * advertising, so a store there turns it off.
   */
  showRegularPrice: boolean;
  /** Potency badges (THC, CBD) on the pages; on by default. New York restricts promoting potency. */
  showPotency: boolean;
}

export type PublishingPatch = {
  published?: boolean;
  slug?: string;
  showStock?: boolean;
  showRegularPrice?: boolean;
  showPotency?: boolean;
};

/** The switches of a publishing patch: wire name → model name (each true or false). */
const SWITCHES = {
  show_stock: 'showStock',
  show_regular_price: 'showRegularPrice',
  show_potency: 'showPotency',
} as const;

export const SLUG_MIN = 3;
export const SLUG_MAX = 64;
export const SLUG_PATTERN = '^[a-z0-9-]{3,64}$';
const SLUG = new RegExp(SLUG_PATTERN);

/** The wire names of the publishing fields (PATCH /admin/v1/dispensaries/{id}). */
export const PUBLISHING_FIELDS = {
  published: 'published',
  slug: 'slug',
  show_stock: 'showStock',
  show_regular_price: 'showRegularPrice',
  show_potency: 'showPotency',
} as const satisfies Record<string, keyof Publishing>;

export function isSlug(value: string): boolean {
  return SLUG.test(value);
}

/**
 * A slug suggested from a name: lower case ASCII letters and digits, accents dropped, every other run
 * of characters one hyphen; padded to the minimum length, cut to the maximum.
 */
export function suggestSlug(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/g, '');
  if (base.length >= SLUG_MIN) return base;
  return base ? `${base}-menu` : 'menu';
}

/** The next candidate when `slug` is taken: `name-2`, `name-3`, ..., within the maximum length. */
export function numberedSlug(slug: string, number: number): string {
  const suffix = `-${number}`;
  return `${slug.slice(0, SLUG_MAX - suffix.length).replace(/-+$/g, '')}${suffix}`;
}

/** Checks the publishing fields of a body (snake_case); only the fields present are returned. */
export function validatePublishingPatch(
  raw: Record<string, unknown>,
): { ok: true; patch: PublishingPatch } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const patch: PublishingPatch = {};
  if ('published' in raw) {
    if (typeof raw.published === 'boolean') patch.published = raw.published;
    else problems.push({ field: 'published', message: 'must be true or false' });
  }
  for (const [wire, name] of Object.entries(SWITCHES) as [
    keyof typeof SWITCHES,
    (typeof SWITCHES)[keyof typeof SWITCHES],
  ][]) {
    if (!(wire in raw)) continue;
    const value = raw[wire];
    if (typeof value === 'boolean') patch[name] = value;
    else problems.push({ field: wire, message: 'must be true or false' });
  }
  if ('slug' in raw) {
    if (typeof raw.slug === 'string' && isSlug(raw.slug)) patch.slug = raw.slug;
    else
      problems.push({
        field: 'slug',
        message: `must be ${SLUG_MIN} to ${SLUG_MAX} characters of a-z, 0-9 and -`,
      });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, patch };
}

/** The wire shape (snake_case), in API answers and the CLI's --json. */
export function publishingRecord(publishing: Publishing) {
  return {
    published: publishing.published,
    slug: publishing.slug,
    show_stock: publishing.showStock,
    show_regular_price: publishing.showRegularPrice,
    show_potency: publishing.showPotency,
  };
}
