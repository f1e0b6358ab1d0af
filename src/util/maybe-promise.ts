/**
 * A value that is ready now, or later. The read path returns these rather than promises: a menu read
 * is answered from memory nearly always, and a promise per step (with its microtask) cost more than
 * the steps themselves (bench/PROFILE.md).
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`, at once when the value is ready, else when it is. */
export function andThen<T, U>(value: MaybePromise<T>, next: (ready: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
