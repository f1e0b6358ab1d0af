/**
 * What the API answers, typed from the same TypeBox schemas the server serializes with. Every import
 * here is `import type`: nothing of the server is loaded at run time.
 */
import type { Static } from 'typebox';
import type { ErrorCode } from '../domain/error-codes.js';
import type { Unit } from '../domain/item-vocabulary.js';
import type { WeeklyHours } from '../domain/store-info.js';
import type { InventoryEntrySchema } from '../forms/common/inventory.js';
import type { StoreInfoSchema } from '../forms/common/store-info.js';
import type { FormAItem as FormAItemWire, FormAPrice as FormAPriceSchema } from '../forms/form-a/item.js';
import type { FormBPrice as FormBPriceSchema, formBItemSchema } from '../forms/form-b/item.js';

export type { Unit };
export type Form = 'A' | 'B';

type WithUnit<T> = Omit<T, 'unit'> & { unit: Unit };

/** A price entry of Form A: `unit`, `amount`, `price` (at most two decimals, the store's currency). */
export type FormAPrice = WithUnit<Static<typeof FormAPriceSchema>>;

/** A menu item as Form A (`POST /menu`) sends it. */
export type FormAItem = Omit<FormAItemWire, 'product_prices'> & { product_prices: FormAPrice[] };

/** A price entry of Form B: Form A's fields and `stock` (null when not tracked). */
export type FormBPrice = WithUnit<Static<typeof FormBPriceSchema>>;

/**
 * A menu item as Form B (`GET /menu`) sends it. The specification spells two fields two ways; a server
 * sends both by default (`brand` and `brand_name`, `variants` and `prices`), or one of each when it
 * runs with `--form-b-names table|sample`. `brandOf()` and `pricesOf()` read whichever is there.
 */
export type FormBItem = Static<ReturnType<typeof formBItemSchema>> & {
  brand?: string;
  brand_name?: string;
  variants?: FormBPrice[];
  prices?: FormBPrice[];
};

/** The items of a menu in the shape of form F. */
export type MenuItemOf<F extends Form> = F extends 'A' ? FormAItem : FormBItem;

/** Store information (`/store`), the same in both forms. Unknown values are null. */
export type StoreInfo = Omit<Static<typeof StoreInfoSchema>, 'hours'> & { hours: WeeklyHours | null };

/** One entry of `/inventory`: one per price entry of every active item. */
export type InventoryEntry = WithUnit<Static<typeof InventoryEntrySchema>>;

/** A field-level reason of a 400 or 422. */
export interface Problem {
  field: string;
  message: string;
}

/** The codes the server answers with, and those the client adds for failures without an answer. */
export type ApiErrorCode = ErrorCode;
export type ClientErrorCode = 'timeout' | 'network_error' | 'invalid_response' | 'aborted';

import type { CanonicalItemSchema } from '../domain/item-schema.js';
/*
 * The sync API's answers (/admin/v1), typed from the route schemas the server serializes with and the
 * OpenAPI document is made of. The console (console/) uses these; so may any other admin client.
 */
import type { AccountOut, IssuedLinkOut, LinkOut } from '../http/routes/admin/accounts.schemas.js';
import type { AuditEntryOut, UsageOut } from '../http/routes/admin/activity.schemas.js';
import type { AdminKeyOut, CreatedAdminKeyOut } from '../http/routes/admin/admin-keys.schemas.js';
import type { CredentialOut, IssuedCredentialOut } from '../http/routes/admin/credentials.schemas.js';
import type {
  CreatedDispensaryOut,
  DispensaryOut,
  DispensarySummaryOut,
  TokenOut,
} from '../http/routes/admin/dispensaries.schemas.js';
import type {
  AccessRequestOut,
  AccessTokenOut,
  IntegratorOut,
  PortalOut,
  RotatedPasswordOut,
} from '../http/routes/admin/integrators.schemas.js';
import type { ImportResultOut, UpsertOut } from '../http/routes/admin/menu.schemas.js';
import type { PasswordChangedOut } from '../http/routes/admin/own-password.schemas.js';
import type { PasskeyOut } from '../http/routes/admin/passkeys.schemas.js';
import type { EnrolledSessionOut, SessionOut, SignedOutOut } from '../http/routes/admin/session.schemas.js';
import type { ScheduleOut, SpecialOut } from '../http/routes/admin/specials.schemas.js';
import type {
  EnrolmentOut,
  PendingSignInOut,
  RecoveryCodesOut,
  TotpStatusOut,
} from '../http/routes/admin/totp.schemas.js';
import type { DeliveryOut, WebhookOut, WebhookWithSecretOut } from '../http/routes/admin/webhooks.schemas.js';

export type AdminSession = Static<typeof SessionOut>;
export type AccountSummary = Static<typeof AccountOut>;
export type IntegratorSummary = Static<typeof IntegratorOut>;
export type AccessRequestSummary = Static<typeof AccessRequestOut>;
export type IntegratorPortal = Static<typeof PortalOut>;
export type RotatedCredentialPassword = Static<typeof RotatedPasswordOut>;
export type IntegratorAccessToken = Static<typeof AccessTokenOut>;
export type PasskeySummary = Static<typeof PasskeyOut>;
export type PendingSignIn = Static<typeof PendingSignInOut>;
export type EnrolledSession = Static<typeof EnrolledSessionOut>;
export type TotpEnrolment = Static<typeof EnrolmentOut>;
export type TotpStatus = Static<typeof TotpStatusOut>;
export type PasswordChanged = Static<typeof PasswordChangedOut>;
export type SignedOut = Static<typeof SignedOutOut>;
export type RecoveryCodes = Static<typeof RecoveryCodesOut>;
export type IssuedAccountLink = Static<typeof IssuedLinkOut>;
export type AccountLinkInfo = Static<typeof LinkOut>;
export type DispensarySummary = Static<typeof DispensarySummaryOut>;
export type DispensaryDetail = Omit<Static<typeof DispensaryOut>, 'store'> & { store: StoreInfo };
export type CreatedDispensary = Static<typeof CreatedDispensaryOut>;
export type RotatedToken = Static<typeof TokenOut>;
export type CredentialSummary = Static<typeof CredentialOut>;
export type IssuedCredential = Static<typeof IssuedCredentialOut>;
export type AdminKeySummary = Static<typeof AdminKeyOut>;
export type CreatedAdminKey = Static<typeof CreatedAdminKeyOut>;
export type AuditEntry = Static<typeof AuditEntryOut>;
export type UsageCount = Static<typeof UsageOut>;
export type ImportResult = Static<typeof ImportResultOut>;
export type UpsertResult = Static<typeof UpsertOut>;
/** An item as the sync API reads and writes it: every field of both forms, with its price entries. */
export type CanonicalItem = WithUnitPrices<Static<typeof CanonicalItemSchema>>;
type WithUnitPrices<T> = T extends { prices: (infer P)[] }
  ? Omit<T, 'prices'> & { prices: WithUnit<P>[] }
  : T;
export type SpecialSummary = Static<typeof SpecialOut>;
export type SpecialsSchedule = Static<typeof ScheduleOut>;
export type WebhookSummary = Static<typeof WebhookOut>;
export type CreatedWebhook = Static<typeof WebhookWithSecretOut>;
export type WebhookDelivery = Static<typeof DeliveryOut>;
