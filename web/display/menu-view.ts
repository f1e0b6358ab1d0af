import { byName } from '../../src/domain/menu-format.js';
import { PRODUCT_TYPES } from '../../src/domain/item-vocabulary.js';
import type { PublishedItem, PublishedMenu, PublishedStore } from '../../src/domain/published-menu.js';
import { menuTypeOf } from '../../src/domain/menu-details.js';
import { element, ItemView, type ViewSettings } from './item-view.js';
import type { MenuUpdate } from './live.js';

interface Group {
  section: HTMLElement;
  list: HTMLUListElement;
}

const typeRank = (type: string): number => {
  const rank = (PRODUCT_TYPES as readonly string[]).indexOf(type);
  return rank === -1 ? PRODUCT_TYPES.length : rank;
};

/**
 * A menu grouped by type (in the order menus list types), items by name, kept current by snapshots
 * and updates: each item has one element for its lifetime, changed in place; an item that leaves is
 * removed with its element, so the DOM holds exactly the items shown, however long it runs.
 */
export class MenuView {
  readonly root: HTMLElement;
  private readonly groups = new Map<string, Group>();
  private readonly views = new Map<number, ItemView>();
  private readonly settings: ViewSettings;
  private words: string[] = [];
  /** The menu asked for (`?menu=`, the embed's switch); shown when the store sells from it. */
  private askedMenu: string | null;
  /** Told when the store's menus are known or change (the embed shows its switch then). */
  onStore: (store: PublishedStore) => void = () => {};

  constructor(className: string, options: { links: boolean; menu: string | null }) {
    this.root = element('div', className);
    this.askedMenu = options.menu;
    this.settings = {
      store: { currency: 'USD', timezone: null, show_potency: true },
      menuType: 'rec',
      links: options.links,
    };
  }

  /** The menu whose prices are shown. */
  get menuType(): string {
    return this.settings.menuType;
  }

  /** Shows the prices of another menu (`rec`, `med`), when the store sells from it. */
  showMenu(menu: string): void {
    this.askedMenu = menu;
    this.setStore(this.store);
  }

  private store: PublishedStore | undefined;

  private setStore(store: PublishedStore | undefined): void {
    if (!store) return;
    this.store = store;
    this.settings.store = store;
    this.settings.menuType = menuTypeOf(store, this.askedMenu);
    for (const view of this.views.values()) view.update(view.item, this.settings);
    this.onStore(store);
  }

  get size(): number {
    return this.views.size;
  }

  snapshot(menu: PublishedMenu): void {
    this.setStore(menu.store);
    const present = new Set<number>();
    for (const item of menu.items) {
      present.add(item.id);
      this.upsert(item);
    }
    for (const id of [...this.views.keys()]) if (!present.has(id)) this.remove(id);
  }

  update(update: MenuUpdate): void {
    if (update.store) this.setStore(update.store);
    for (const item of update.items) this.upsert(item);
    for (const id of update.removed) this.remove(id);
  }

  /** Shows only the items whose name, brand, subtype or type hold every word. */
  filter(text: string): number {
    this.words = text.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const view of this.views.values()) if (this.applyFilter(view)) shown++;
    for (const group of this.groups.values()) group.section.hidden = !group.list.querySelector('.item:not([hidden])');
    return shown;
  }

  private applyFilter(view: ItemView): boolean {
    const match = this.words.every((word) => view.search.includes(word));
    view.root.hidden = !match;
    return match;
  }

  private upsert(item: PublishedItem): void {
    const view = this.views.get(item.id);
    if (view) {
      const moved = view.item.product_type !== item.product_type || view.item.name !== item.name;
      view.update(item, this.settings);
      if (moved) this.place(view);
    } else {
      const created = new ItemView(item, this.settings);
      this.views.set(item.id, created);
      this.place(created);
    }
    const shown = this.views.get(item.id)!;
    if (this.words.length > 0) this.applyFilter(shown);
  }

  private remove(id: number): void {
    const view = this.views.get(id);
    if (!view) return;
    this.views.delete(id);
    const list = view.root.parentElement;
    view.root.remove();
    this.dropIfEmpty(view.item.product_type, list);
  }

  private dropIfEmpty(type: string, list: HTMLElement | null): void {
    const group = this.groups.get(type);
    if (group && list === group.list && group.list.childElementCount === 0) {
      group.section.remove();
      this.groups.delete(type);
    }
  }

  /** Puts an item's element in its group, in name order. */
  private place(view: ItemView): void {
    const previousList = view.root.parentElement;
    const previousType = previousList?.parentElement?.dataset.type;
    const group = this.group(view.item.product_type);
    let before: Element | null = null;
    for (const sibling of group.list.children) {
      if (sibling === view.root) continue;
      const other = this.views.get(Number((sibling as HTMLElement).dataset.id));
      if (other && byName(view.item, other.item) < 0) {
        before = sibling;
        break;
      }
    }
    if (view.root.nextElementSibling !== before || view.root.parentElement !== group.list) {
      group.list.insertBefore(view.root, before);
    }
    if (previousType !== undefined && previousType !== view.item.product_type) {
      this.dropIfEmpty(previousType, previousList);
    }
  }

  private group(type: string): Group {
    const known = this.groups.get(type);
    if (known) return known;
    const section = element('section', 'group');
    section.dataset.type = type;
    const heading = element('h2', 'group-title', type);
    const list = element('ul', 'items');
    section.append(heading, list);
    let before: Element | null = null;
    for (const other of this.root.children) {
      if (typeRank((other as HTMLElement).dataset.type ?? '') > typeRank(type)) {
        before = other;
        break;
      }
    }
    this.root.insertBefore(section, before);
    const group = { section, list };
    this.groups.set(type, group);
    return group;
  }
}
