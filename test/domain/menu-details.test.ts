import { describe, expect, it } from 'vitest';
import {
  analyteName,
  formatSize,
  formatStrainType,
  labResultsUrl,
  menuTypeOf,
} from '../../src/domain/menu-details.js';

/** The words the public surfaces build from a published item (src/domain/menu-details.ts), without a server. */
describe('menu details', () => {
  it('links only an http(s) certificate, whatever else a batch holds', () => {
    const batch = (coa_url: string | null) => ({ batch: { coa_url } }) as never;
    expect(labResultsUrl(batch('https://lab.example/coa.pdf'))).toBe('https://lab.example/coa.pdf');
    expect(labResultsUrl(batch('HTTP://lab.example/coa.pdf'))).toBe('HTTP://lab.example/coa.pdf');
    for (const url of [
      'javascript:alert(1)',
      'data:text/html,x',
      '//lab.example/coa.pdf',
      'https://a b',
      null,
    ])
      expect(labResultsUrl(batch(url)), String(url)).toBeNull();
    expect(labResultsUrl({ batch: null } as never)).toBeNull();
  });

  it('sizes say their grams once; labels first', () => {
    const size = (unit: string, amount: number, label: string, net_weight_g: number | null) =>
      formatSize({ unit, amount, label, net_weight_g } as never);
    expect(size('ounce', 0.125, '', 3.5)).toBe('⅛ oz · 3.5 g');
    expect(size('ounce', 0.125, 'Eighth', 3.5)).toBe('Eighth · 3.5 g');
    expect(size('gram', 0.5, '', 0.5)).toBe('½ g');
    expect(size('gram', 1, 'Gram', 1)).toBe('Gram · 1 g');
    expect(size('ounce', 1, '', 28)).toBe('1 oz · 28 g');
    expect(size('unit', 1, '', null)).toBe('each');
  });

  it('names analytes, strain types and the menu shown', () => {
    expect(['beta-myrcene', 'limonene', 'p-cymene', 'delta-3-carene'].map(analyteName)).toEqual([
      'β-Myrcene',
      'Limonene',
      'p-Cymene',
      'δ-3-Carene',
    ]);
    expect(formatStrainType({ strain: { type: 'indica_dominant' } } as never)).toBe('Indica-dominant');
    expect(formatStrainType({ strain: { type: 'high_cbd' } } as never)).toBe('High CBD');
    expect(menuTypeOf({ menu_types: ['rec', 'med'] }, 'med')).toBe('med');
    expect(menuTypeOf({ menu_types: ['rec'] }, 'med')).toBe('rec');
    expect(menuTypeOf({ menu_types: ['med'] }, null)).toBe('med');
  });
});
