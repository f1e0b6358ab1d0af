/** The forms' schemas share the domain's nullable helper (the item schema uses it too). */
export { Nullable } from '../domain/nullable.js';
