/** The `q` searches of bench/v1.ts and bench/v1-search.ts (issue 32, §4). */

/** Words of the realistic menus (bench/lib/data.ts): searches are made of them and their beginnings. */
const WORDS = [
  'blue',
  'sour',
  'purple',
  'dream',
  'diesel',
  'haze',
  'kush',
  'cookies',
  'cake',
  'runtz',
  'glue',
  'flower',
  'preroll',
  'vape',
  'edible',
  'gummies',
  'emerald',
  'coastal',
  'baked',
  'berry',
  'citrus',
  'earthy',
  'pine',
  'sweet',
  'grape',
  'mint',
  'relaxed',
  'happy',
  'euphoric',
  'uplifted',
  'creative',
  'sleepy',
  'focused',
  'indoor',
  'hybrid',
  'sativa',
  'indica',
  'cart',
  'live',
  'resin',
];
/** Distinct searches: a word, then the beginning (2 to 4 letters) of another. */
export const SEARCHES = [
  ...new Set(
    WORDS.flatMap((first) =>
      WORDS.flatMap((second) => [2, 3, 4].map((letters) => `${first} ${second.slice(0, letters)}`)),
    ),
  ),
];
