import type { DocumentCheck, Field, FieldKind } from './field-kinds.js';
import { toCents } from './money.js';

// How one field of an input is checked by its kind (validate-item.ts walks the fields).

/** One reason an input was rejected; `field` is a path such as `prices[1].amount`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** Collects the problems of one record's fields, each at its path (`prefix` + field name). */
export class Checker {
  readonly problems: FieldProblem[] = [];
  constructor(
    private readonly values: Record<string, unknown>,
    private readonly prefix: string,
  ) {}

  private fail(field: string, message: string): undefined {
    this.problems.push({ field: `${this.prefix}${field}`, message });
    return undefined;
  }

  private present(field: string): boolean {
    return this.values[field] !== undefined && this.values[field] !== null;
  }

  text(field: string, maxLength: number, required: boolean): string | undefined {
    const value = this.values[field];
    if (!this.present(field)) {
      return required ? this.fail(field, 'is required') : '';
    }
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    // PostgreSQL text cannot hold NUL: refused here, on every database alike, rather than a 500 there.
    if (value.includes('\0')) return this.fail(field, 'must not contain a NUL character');
    const trimmed = value.trim();
    if (required && trimmed.length === 0) return this.fail(field, 'must not be empty');
    if (trimmed.length > maxLength) return this.fail(field, `must be at most ${maxLength} characters`);
    return trimmed;
  }

  number(field: string, min: number, max: number): number | null | undefined {
    const value = this.values[field];
    if (!this.present(field)) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.fail(field, 'must be a number');
    if (value < min || value > max) return this.fail(field, `must be between ${min} and ${max}`);
    return value;
  }

  tags(field: string, maxEntries: number, maxLength: number): string[] | undefined {
    const value = this.values[field];
    if (!this.present(field)) return [];
    if (!Array.isArray(value)) return this.fail(field, 'must be an array of strings');
    if (value.length > maxEntries) return this.fail(field, `must have at most ${maxEntries} entries`);
    const tags: string[] = [];
    for (let index = 0; index < value.length; index++) {
      const tag: unknown = value[index];
      if (typeof tag !== 'string' || tag.trim().length === 0) {
        return this.fail(`${field}[${index}]`, 'must be a non-empty string');
      }
      if (tag.length > maxLength) {
        return this.fail(`${field}[${index}]`, `must be at most ${maxLength} characters`);
      }
      // A CSV cell separates list entries with ';', so a tag holding one could not survive an export.
      if (tag.includes(';')) return this.fail(`${field}[${index}]`, "must not contain ';'");
      tags.push(tag.trim());
    }
    return tags;
  }

  unknownFields(known: ReadonlySet<string>): void {
    for (const key in this.values) {
      if (!known.has(key)) this.fail(key, 'is not a known field');
    }
  }

  raise(field: string, message: string): void {
    this.fail(field, message);
  }

  document(field: string, check: DocumentCheck): unknown {
    return check(this.values[field], `${this.prefix}${field}`, this.problems);
  }
}

/** The limits a field's schema declares, which its checks and messages use. */
export interface Limits {
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: readonly string[];
  items?: Limits;
  type?: string | string[];
  default?: unknown;
}

const nullable = (limits: Limits) => Array.isArray(limits.type) && limits.type.includes('null');

/** A category's choices by their lower case, made once per list of choices rather than per item checked. */
const byLowerCase = new WeakMap<readonly string[], ReadonlyMap<string, string>>();
function inAnyCase(choices: readonly string[], value: string): string | undefined {
  let choice = byLowerCase.get(choices);
  if (!choice) {
    choice = new Map(choices.map((one) => [one.toLowerCase(), one]));
    byLowerCase.set(choices, choice);
  }
  return choice.get(value.trim().toLowerCase());
}

/** Checks one field by its kind; the value for the model, or undefined after raising a problem. */
export function checkField(
  check: Checker,
  name: string,
  spec: Field<Exclude<FieldKind, 'entries'>>,
  value: unknown,
): unknown {
  const limits = spec.schema as Limits;
  switch (spec.kind) {
    case 'id':
      if (value === undefined || value === null) return null;
      if (
        typeof value !== 'number' ||
        !Number.isInteger(value) ||
        value < limits.minimum! ||
        value > limits.maximum!
      ) {
        check.raise(name, `must be an integer from ${limits.minimum} to ${limits.maximum}`);
        return undefined;
      }
      return value;
    case 'text':
      return check.text(name, limits.maxLength!, (limits.minLength ?? 0) > 0);
    case 'url': {
      const text = check.text(name, limits.maxLength!, false);
      if (text && !/^https?:\/\/\S+$/i.test(text)) check.raise(name, 'must be an http or https URL');
      return text ? text : null;
    }
    case 'category': {
      if (value === undefined || value === null) {
        check.raise(name, 'is required');
        return undefined;
      }
      const choices = limits.enum!;
      const match = typeof value === 'string' ? inAnyCase(choices, value) : undefined;
      if (!match) check.raise(name, `must be one of ${choices.join(', ')}`);
      return match;
    }
    case 'unit': {
      const choices = limits.enum!;
      const match = choices.includes(value as string) ? (value as string) : undefined;
      if (!match) check.raise(name, `must be one of ${choices.join(', ')}`);
      return match;
    }
    case 'number':
      return check.number(name, limits.minimum!, limits.maximum!);
    case 'measure':
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        value <= limits.exclusiveMinimum! ||
        value > limits.maximum!
      ) {
        check.raise(name, `must be a number above ${limits.exclusiveMinimum} and at most ${limits.maximum}`);
        return undefined;
      }
      return value;
    case 'money': {
      if ((value === undefined || value === null) && nullable(limits)) return null;
      if (typeof value !== 'number') {
        check.raise(name, 'must be a number');
        return undefined;
      }
      const cents = toCents(value);
      if (cents === null) check.raise(name, 'must be a non-negative amount with at most two decimals');
      return cents ?? undefined;
    }
    case 'list':
      return check.tags(name, limits.maxItems!, limits.items!.maxLength!);
    case 'flag': {
      const flag = value ?? limits.default ?? true;
      if (typeof flag !== 'boolean') {
        check.raise(name, 'must be true or false');
        return undefined;
      }
      return flag;
    }
    case 'document':
      return check.document(name, spec.check!);
  }
}
