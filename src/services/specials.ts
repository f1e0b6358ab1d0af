import { MenuPricing } from '../domain/special-pricing.js';
import { type AppliesPeriod, periodsBetween } from '../domain/special-schedule.js';
import type { Special } from '../domain/special-schema.js';
import type { FieldProblem } from '../domain/validate-item.js';
import { validateSpecial } from '../domain/validate-special.js';
import type { Actor, Store } from '../store/store.js';
import type { AfterWrite } from './dispensaries.js';
import { refusedWrite, ServiceError } from './errors.js';

/**
 * Each dispensary's specials, for the sync API and the CLI: validated here (validate-special.ts), kept
 * and audit-logged by the store, whose writes record every item they reprice in the live feed.
 */
const DAY_MS = 86_400_000;

/** The specials of a dispensary with the spans each applies in a period [from, to) (ms). */
export interface SpecialsSchedule {
  from: number;
  to: number;
  /** The store's IANA time zone; null: UTC. */
  timezone: string | null;
  specials: { special: Special; periods: AppliesPeriod[] }[];
}

export class SpecialService {
  constructor(
    private readonly store: Store,
    private readonly afterWrite: AfterWrite = async () => {},
    /** The clock the effective prices are read at (tests move it). */
    private readonly now: () => number = Date.now,
  ) {}

  async list(dispensaryId: number): Promise<Special[]> {
    await this.requireDispensary(dispensaryId);
    return this.store.specials.list(dispensaryId);
  }

  async get(dispensaryId: number, id: number): Promise<Special> {
    await this.requireDispensary(dispensaryId);
    const special = await this.store.specials.get(dispensaryId, id);
    if (!special) throw notFound(dispensaryId, id);
    return special;
  }

  /** A new special from a request body (any JSON value: it is checked here). */
  async create(dispensaryId: number, raw: unknown, actor?: Actor): Promise<Special> {
    await this.requireDispensary(dispensaryId);
    const result = validateSpecial(raw);
    if (!result.ok) throw rejected(result.problems);
    const special = await this.store.specials.create(dispensaryId, result.fields, actor);
    if (!special) throw noDispensary(dispensaryId);
    await this.afterWrite();
    return special;
  }

  /** Changes the fields the body sends; the special is checked whole after the change. */
  async change(dispensaryId: number, id: number, raw: unknown, actor?: Actor): Promise<Special> {
    const current = await this.get(dispensaryId, id);
    const result = validateSpecial(raw, current);
    if (!result.ok) throw rejected(result.problems);
    const special = await this.store.specials.update(dispensaryId, id, result.fields, actor);
    if (!special) throw notFound(dispensaryId, id);
    await this.afterWrite();
    return special;
  }

  async remove(dispensaryId: number, id: number, actor?: Actor): Promise<void> {
    await this.requireDispensary(dispensaryId);
    if (!(await this.store.specials.remove(dispensaryId, id, actor))) throw notFound(dispensaryId, id);
    await this.afterWrite();
  }

  /** The dispensary's pricing now: each price entry's effective price and special (MenuPricing). */
  async pricing(dispensaryId: number): Promise<MenuPricing> {
    const found = await this.store.specials.ofDispensary(dispensaryId);
    if (!found) throw noDispensary(dispensaryId);
    return new MenuPricing(found.specials, found.timezone, this.now());
  }

  /**
   * When each of the dispensary's specials applies in the `days` days from now, in order: the console's
   * preview of a schedule (a daily window, a date, a change of the clocks all worked out in the store's
   * time zone, as the prices themselves are).
   */
  async schedule(dispensaryId: number, days: number): Promise<SpecialsSchedule> {
    const found = await this.store.specials.ofDispensary(dispensaryId);
    if (!found) throw noDispensary(dispensaryId);
    const from = this.now();
    const to = from + days * DAY_MS;
    return {
      from,
      to,
      timezone: found.timezone,
      specials: found.specials.map((special) => ({
        special,
        periods: periodsBetween(special, found.timezone, from, to),
      })),
    };
  }

  private async requireDispensary(dispensaryId: number): Promise<void> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw noDispensary(dispensaryId);
  }
}

const rejected = (problems: FieldProblem[]): ServiceError =>
  refusedWrite('The special was refused', problems);

const noDispensary = (id: number) =>
  new ServiceError('not_found', `There is no dispensary ${id}. List them with: npx menu-api dispensary list`);

const notFound = (dispensaryId: number, id: number) =>
  new ServiceError(
    'not_found',
    `Dispensary ${dispensaryId} has no special ${id}. List them with: npx menu-api special list ${dispensaryId}`,
  );
