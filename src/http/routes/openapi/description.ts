/** The document's `info.description`: how to call the API, its errors, and the decisions the README records. */
export const DESCRIPTION = `
Read a dispensary's menu, store information and live inventory; keep them current through the sync API.

Integrators register themselves at [/developers](/developers): after the operator approves them, they sign in
to their portal at [/console](/console/) for their credential, their usage per hour and their own webhooks,
and ask each dispensary for access there (the same as the sync API's \`/admin/v1/developer\` routes).

Both documented request forms are served by the same server on the same port:

| | Form A | Form B |
|---|---|---|
| Method | \`POST\` | \`GET\` (and \`HEAD\`) |
| Credentials | body fields \`username\`, \`password\` | headers \`username\`, \`password\` |
| Dispensary token | body field \`collective_token\` | header \`store\` |
| Endpoints | \`/menu\`, \`/store\`, \`/inventory\` | \`/menu\`, \`/store\`, \`/inventory\` |

**Form A** sends its credentials in the JSON request body. OpenAPI has no security scheme for body
fields, so they appear as required fields of each Form A request body instead. Besides
\`application/json\`, Form A reads the same JSON object as \`text/plain\`, and a real urlencoded form
with the same field names. For clients written that way, the server also reads the JSON text with no
content type or labelled \`application/x-www-form-urlencoded\` (what \`curl -d\` sends without a
content type); no schema can describe that body, so send \`Content-Type: application/json\`.

**Form B** sends its credentials in three headers, described as the security schemes \`FormBStore\`,
\`FormBUsername\` and \`FormBPassword\` (all three are required together).

**The sync API** under \`/admin/v1\` takes \`Authorization: Bearer <admin key>\` (scheme \`AdminKey\`);
create a key with \`npx menu-api admin-key create --scope all --name NAME\`. The console signs in with
\`POST /admin/v1/session\`, which takes the key in its body (no security scheme), and then calls it
with the session cookie instead (scheme \`ConsoleSession\`). Every write accepts an \`Idempotency-Key\`
header: the same key with the same request within 24 hours returns the first answer (with
\`idempotent-replayed: true\`) and changes nothing again. Every request body of the sync API is closed
(\`additionalProperties: false\`): a field it does not take is refused with 400 naming it, never ignored.

The demo server (\`npm start\`, which runs \`npx menu-api serve --demo\`) answers the examples below: credential \`demo\` /
\`demo-password\`, dispensary token \`demo-collective-token\`. These secrets are public.

## Errors

Every error is JSON of one shape (\`ErrorBody\`), and every response carries \`x-request-id\` (a client
may send its own, up to 64 characters of \`A-Za-z0-9._:-\`, which is then echoed). Checks run in the
order shape (400), credentials (401), token (403). A wrong method on a known path is 405 with \`Allow\`;
an unknown path is 404; both with the same JSON body (\`components.responses.MethodNotAllowed\`). A 429
or 503 carries \`Retry-After\` (seconds). Every rate-limited answer carries \`RateLimit-Policy\` and
\`RateLimit\`. Every path served with \`GET\` also answers \`HEAD\` (the same headers, no body).

## Decisions where the specification is silent

- **Missing values**: text fields (\`brand\`, \`product_subtype\`, \`description\`) are \`""\` when unknown;
  potency numbers and \`image\` are \`null\`; lists are \`[]\`. Every documented field is always present.
- **Prices**: JSON numbers with at most two decimals, in the dispensary's \`currency\` (\`/store\`, ISO
  4217, default USD).
- **Product types**: the union of both forms' lists; Form A passes a type only Form B lists (Vape,
  Topical, Other) through unchanged.
- **Form A \`active\`**: omitted or \`true\`, only active items; \`false\`, every item with its flag.
  Form B lists active items only.
- **Form B field names**: the specification's table says \`brand\` and \`variants\`, its sample payload
  \`brand_name\` and \`prices\`; both spellings are sent by default (\`serve --form-b-names table|sample\`
  narrows the answer to one, and this document then describes that one).
- **Ordering**: items by id, price entries in the order given. No pagination (a menu is at most 20,000
  items) and no filtering besides Form A's \`active\`.
- **Inventory \`since\`**: an RFC 3339 time; entries whose price or stock changed strictly after it. A
  \`since\` poll does not report removals.
- **Repeated headers**: a credential header sent twice is a 400 rather than a guess.
- **Tokens and credentials**: issued by the operator and shown once. A rotated-out token keeps working
  for a grace period, 24 hours by default (\`grace_seconds\` of \`rotate-token\`; 0 ends it at once),
  then gets 403. Usernames are never reused.
- **Dispensary names** need not be unique: two dispensaries may share a name; the id tells them apart.
- **Versioning**: no version in the public paths (clients written against the specification work
  unchanged); the sync API is versioned in its path, \`/admin/v1\`.
`.trim();
