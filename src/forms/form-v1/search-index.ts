/**
 * The `q` search index of one menu version: each folded word to the items holding it (with the weight
 * of the heaviest group it is in there), and the words sorted, so that the items holding a word that
 * begins with the query's last word are a range of that list. Built once per menu version, the first
 * time a search asks; a search then reads only the postings of its words, not every word of every item.
 */

/** How much a match in each group of an item's words counts (name, brand and strain, the rest). */
export const WEIGHTS = [4, 2, 1] as const;

/** The items (by position in the menu's rows) holding one word, ascending, and the word's weight in each. */
interface Postings {
  rows: Int32Array;
  weights: Uint8Array;
}

/** A built index's parts, shared by the index patched from it (see SearchIndex.patched). */
interface Parts {
  postings: Map<string, Postings>;
  terms: string[];
  /** The menu's items. */
  size: number;
}

/** One item's folded words by group (name; brand and strain; the rest), as WEIGHTS orders them. */
type Groups = readonly (readonly string[])[];

/** An item whose words changed, by its position (which did not change). */
export interface ChangedWords {
  row: number;
  before: Groups;
  after: Groups;
}

/** The weight of each word of an item: that of the heaviest group it is in. */
function weightsOf(groups: Groups): Map<string, number> {
  const weights = new Map<string, number>();
  groups.forEach((group, at) => {
    const weight = WEIGHTS[at] ?? 0;
    for (const word of group) weights.set(word, Math.max(weights.get(word) ?? 0, weight));
  });
  return weights;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The postings of a word with the changed rows' entries taken out and `added` (row, weight) put in. */
function repost(earlier: Postings | undefined, changed: ReadonlySet<number>, added: [number, number][]) {
  const rows: number[] = [];
  const weights: number[] = [];
  added.sort((a, b) => a[0] - b[0]);
  let next = 0;
  const take = () => {
    const [row, weight] = added[next++]!;
    rows.push(row);
    weights.push(weight);
  };
  for (let at = 0; at < (earlier?.rows.length ?? 0); at++) {
    const row = earlier!.rows[at]!;
    while (next < added.length && added[next]![0] < row) take();
    if (changed.has(row)) continue;
    rows.push(row);
    weights.push(earlier!.weights[at]!);
  }
  while (next < added.length) take();
  return rows.length === 0 ? undefined : { rows: Int32Array.from(rows), weights: Uint8Array.from(weights) };
}

export class SearchIndex {
  private readonly postings: Map<string, Postings>;
  /** Every word of the menu, in code-unit order (as startsWith compares). */
  private readonly terms: string[];
  /** Per search, reused: the best score of the word at hand, and the sum and count of words found. */
  private readonly best: Int32Array;
  private readonly score: Int32Array;
  private readonly found: Int32Array;

  /**
   * `words[row]` are that row's folded words by group, as WEIGHTS orders them; or an index's parts
   * (see `patched`).
   */
  constructor(words: readonly Groups[] | Parts) {
    if ('postings' in words) {
      this.postings = words.postings;
      this.terms = words.terms;
      this.best = new Int32Array(words.size);
      this.score = new Int32Array(words.size);
      this.found = new Int32Array(words.size);
      return;
    }
    this.postings = new Map();
    const building = new Map<string, { rows: number[]; weights: number[] }>();
    words.forEach((groups, row) => {
      groups.forEach((group, at) => {
        const weight = WEIGHTS[at] ?? 0;
        for (const word of group) {
          let list = building.get(word);
          if (!list) {
            list = { rows: [], weights: [] };
            building.set(word, list);
          }
          const last = list.rows.length - 1;
          // Rows come in order, so this row's entry, if any, is the last one; keep the heaviest group.
          if (last >= 0 && list.rows[last] === row)
            list.weights[last] = Math.max(list.weights[last]!, weight);
          else {
            list.rows.push(row);
            list.weights.push(weight);
          }
        }
      });
    });
    for (const [word, list] of building)
      this.postings.set(word, { rows: Int32Array.from(list.rows), weights: Uint8Array.from(list.weights) });
    this.terms = [...building.keys()].sort(byCodeUnits);
    this.best = new Int32Array(words.length);
    this.score = new Int32Array(words.length);
    this.found = new Int32Array(words.length);
  }

  /**
   * This index after some items' words changed (the items the same, in the same order): only the
   * postings of their words are made anew, the others shared. It answers as an index built afresh.
   */
  patched(changes: readonly ChangedWords[]): SearchIndex {
    const changed = new Set(changes.map((change) => change.row));
    const added = new Map<string, [number, number][]>();
    const touched = new Set<string>();
    for (const change of changes) {
      for (const group of change.before) for (const word of group) touched.add(word);
      for (const [word, weight] of weightsOf(change.after)) {
        touched.add(word);
        const list = added.get(word) ?? [];
        list.push([change.row, weight]);
        added.set(word, list);
      }
    }
    const postings = new Map(this.postings);
    const gone = new Set<string>();
    const come: string[] = [];
    for (const word of touched) {
      const earlier = this.postings.get(word);
      const now = repost(earlier, changed, added.get(word) ?? []);
      if (now) postings.set(word, now);
      else postings.delete(word);
      if (earlier && !now) gone.add(word);
      if (!earlier && now) come.push(word);
    }
    let terms = this.terms;
    if (gone.size > 0 || come.length > 0) {
      terms = terms.filter((term) => !gone.has(term));
      for (const word of come.sort(byCodeUnits)) terms.splice(firstAtLeast(terms, word), 0, word);
    }
    return new SearchIndex({ postings, terms, size: this.best.length });
  }

  /**
   * The relevance of every item holding all the query words (folded, at least one): each word must be
   * some word of the item, the last may be the start of one; a whole word counts twice a prefix, times
   * its group's weight, the best match of each word summed. Rows in menu order, with their scores.
   */
  search(words: readonly string[]): { rows: number[]; scores: number[] } {
    const { best, score, found } = this;
    const last = words.length - 1;
    // The rows holding every word so far (each word after the first only looks at those), and the
    // rows the first word touched: every row whose score or count this search set, reset at the end.
    let holding: number[] = [];
    let first: number[] = [];
    for (let index = 0; index <= last; index++) {
      const word = words[index]!;
      const touched: number[] = [];
      // The word's own postings count twice a longer word's it begins (the last word's only).
      const lists: [Postings, number][] = [];
      const exact = this.postings.get(word);
      if (exact) lists.push([exact, 2]);
      if (index === last) {
        for (let at = firstAtLeast(this.terms, word); at < this.terms.length; at++) {
          const term = this.terms[at]!;
          if (!term.startsWith(word)) break;
          if (term !== word) lists.push([this.postings.get(term)!, 1]);
        }
      }
      for (const [{ rows, weights }, factor] of lists) {
        for (let at = 0; at < rows.length; at++) {
          const row = rows[at]!;
          if (found[row] !== index) continue;
          const value = weights[at]! * factor;
          const earlier = best[row]!;
          if (earlier === 0) touched.push(row);
          if (value > earlier) best[row] = value;
        }
      }
      for (const row of touched) {
        score[row]! += best[row]!;
        found[row] = index + 1;
        best[row] = 0;
      }
      if (index === 0) first = touched;
      holding = touched;
    }
    // In menu order (a word's postings are, but the prefix's several lists are not, one after another).
    const rows = holding.sort((a, b) => a - b);
    const scores = rows.map((row) => score[row]!);
    for (const row of first) {
      score[row] = 0;
      found[row] = 0;
    }
    return { rows, scores };
  }
}

/** The position of the first of the (sorted) terms not before `word`. */
function firstAtLeast(terms: readonly string[], word: string): number {
  let low = 0;
  let high = terms.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (terms[middle]! < word) low = middle + 1;
    else high = middle;
  }
  return low;
}
