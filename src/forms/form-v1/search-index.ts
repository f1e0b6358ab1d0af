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

export class SearchIndex {
  private readonly postings = new Map<string, Postings>();
  /** Every word of the menu, in code-unit order (as startsWith compares). */
  private readonly terms: string[];
  /** Per search, reused: the best score of the word at hand, and the sum and count of words found. */
  private readonly best: Int32Array;
  private readonly score: Int32Array;
  private readonly found: Int32Array;

  /** `words[row]` are that row's folded words by group, as WEIGHTS orders them. */
  constructor(words: readonly (readonly (readonly string[])[])[]) {
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
    this.terms = [...building.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.best = new Int32Array(words.length);
    this.score = new Int32Array(words.length);
    this.found = new Int32Array(words.length);
  }

  /**
   * The relevance of every item holding all the query words (folded, at least one): each word must be
   * some word of the item, the last may be the start of one; a whole word counts twice a prefix, times
   * its group's weight, the best match of each word summed. Rows in menu order, with their scores.
   */
  search(words: readonly string[]): { rows: number[]; scores: number[] } {
    const { best, score, found } = this;
    score.fill(0);
    found.fill(0);
    const touched: number[] = [];
    for (let index = 0; index < words.length; index++) {
      const word = words[index]!;
      touched.length = 0;
      const add = (postings: Postings, factor: number) => {
        for (let at = 0; at < postings.rows.length; at++) {
          const row = postings.rows[at]!;
          const value = postings.weights[at]! * factor;
          if (best[row] === 0) touched.push(row);
          if (value > best[row]!) best[row] = value;
        }
      };
      const exact = this.postings.get(word);
      if (exact) add(exact, 2);
      if (index === words.length - 1) {
        for (let at = this.firstAtLeast(word); at < this.terms.length; at++) {
          const term = this.terms[at]!;
          if (!term.startsWith(word)) break;
          if (term !== word) add(this.postings.get(term)!, 1);
        }
      }
      for (const row of touched) {
        score[row]! += best[row]!;
        found[row]! += 1;
        best[row] = 0;
      }
    }
    const rows: number[] = [];
    const scores: number[] = [];
    for (let row = 0; row < found.length; row++) {
      if (found[row] === words.length) {
        rows.push(row);
        scores.push(score[row]!);
      }
    }
    return { rows, scores };
  }

  /** The position of the first term not before `word`. */
  private firstAtLeast(word: string): number {
    let low = 0;
    let high = this.terms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.terms[middle]! < word) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
