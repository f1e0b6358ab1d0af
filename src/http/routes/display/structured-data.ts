import { formatSize, type MenuType, shownPrice } from '../../../domain/menu-details.js';
import { groupByType } from '../../../domain/menu-format.js';
import { schemaOrgHours } from '../../../domain/opening-hours.js';
import type { PublishedMenu } from '../../../domain/published-menu.js';

/** The day an instant falls on in a time zone (UTC without one): schema.org's priceValidUntil is a Date. */
function localDay(instant: string, timezone: string | null): string {
  try {
    // en-CA writes dates as YYYY-MM-DD.
    return new Intl.DateTimeFormat('en-CA', { timeZone: timezone ?? 'UTC' }).format(new Date(instant));
  } catch {
    return instant.slice(0, 10);
  }
}

/**
 * schema.org data for search engines: the Store (name, address, opening hours, currency) with an
 * ItemList of Products, each with one Offer per price entry (price, priceCurrency, availability) on
 * the menu shown (`menuType`). Under a special the price is the special's, valid until the day it
 * ends (priceValidUntil), with the regular price as a StrikethroughPrice only when the store shows
 * regular prices (the menu publishes none otherwise).
 */
export function structuredData(
  menu: PublishedMenu,
  pageUrl: string,
  menuType: MenuType = 'rec',
): Record<string, unknown> {
  const { store } = menu;
  const address: Record<string, string> = { '@type': 'PostalAddress' };
  if (store.address) address.streetAddress = store.address;
  if (store.city) address.addressLocality = store.city;
  if (store.state) address.addressRegion = store.state;
  if (store.postal_code) address.postalCode = store.postal_code;
  if (store.country) address.addressCountry = store.country;
  const data: Record<string, unknown> = {
    '@type': 'Store',
    '@id': `${pageUrl}#store`,
    name: store.name,
    url: pageUrl,
    currenciesAccepted: store.currency,
  };
  if (Object.keys(address).length > 1) data.address = address;
  if (store.phone) data.telephone = store.phone;
  if (store.logo) data.logo = store.logo;
  if (store.hours) data.openingHours = schemaOrgHours(store.hours);
  const list = {
    '@type': 'ItemList',
    name: `${store.name} menu`,
    numberOfItems: menu.items.length,
    // In the order the page lists them: by type, then name.
    itemListElement: groupByType(menu.items)
      .flatMap((group) => group.items)
      .map((item, index) => {
        const product: Record<string, unknown> = {
          '@type': 'Product',
          name: item.name,
          category: item.product_type,
          offers: item.prices.map((price) => {
            const shown = shownPrice(price, menuType);
            const offer: Record<string, unknown> = {
              '@type': 'Offer',
              name: formatSize(price),
              price: shown.price.toFixed(2),
              priceCurrency: store.currency,
              seller: { '@id': `${pageUrl}#store` },
              availability: price.in_stock ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
              eligibleQuantity: {
                '@type': 'QuantitativeValue',
                value: price.amount,
                unitText: price.unit,
              },
            };
            if (shown.special?.ends_at)
              offer.priceValidUntil = localDay(shown.special.ends_at, store.timezone);
            if (shown.regular !== undefined)
              offer.priceSpecification = {
                '@type': 'UnitPriceSpecification',
                priceType: 'https://schema.org/StrikethroughPrice',
                price: shown.regular.toFixed(2),
                priceCurrency: store.currency,
              };
            return offer;
          }),
        };
        if (item.brand) product.brand = { '@type': 'Brand', name: item.brand };
        if (item.description) product.description = item.description;
        if (item.image) product.image = item.image;
        return { '@type': 'ListItem', position: index + 1, item: product };
      }),
  };
  return { '@context': 'https://schema.org', '@graph': [data, list] };
}
