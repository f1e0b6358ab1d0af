/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** How every public page's document begins, up to its own head elements (no favicon request: `data:`). */
export const PAGE_HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">`;

/** JSON safe inside a <script type="application/ld+json"> element: no "</script>", no "<!--". */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** An id fragment from a product type: "Flower" → "type-flower". */
export const typeAnchor = (type: string): string => `type-${type.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

/**
 * The public pages' Content-Security-Policy: scripts and styles from this server only, nothing inline
 * (the JSON-LD block is data, not script, so it needs no exception); images from https anywhere
 * (product images live on the dispensary's own hosts); no framing, no plugins, no base rewrites.
 * The board too: it is shown full screen, and the embed (/embed.js) has its own route and no frame.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
