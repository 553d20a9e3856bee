// Values that are ready now or later. The request path stays synchronous as long as the
// tool's handler is, so that every answer to one chunk of input leaves in one write
// (adr/0008); a promise appears only where a handler returns one.

export type MaybePromise<T> = T | Promise<T>;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/** Applies `next` now if `value` is ready, else when it resolves. */
export function then<T, U>(value: MaybePromise<T>, next: (ready: T) => U): MaybePromise<U> {
  return isThenable(value) ? (value as Promise<T>).then(next) : next(value as T);
}
