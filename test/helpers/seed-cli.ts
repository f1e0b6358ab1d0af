// `until` moved to wait.ts; test/store/stock-in-place.test.ts (another part's file) still imports it from here.
export { until } from './wait.js';
