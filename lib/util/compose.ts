// One way to put code around a handler, for the method middleware of the core and the steps
// of the HTTP endpoint alike (adr/0025): a wrap is given the rest of the chain and returns the
// handler that runs it. Composed once, so a chain costs a request only the calls it makes.

/** Code around a handler: given the rest of the chain, the handler that runs it. */
export type Wrap<In, Out> = (next: (input: In) => Out) => (input: In) => Out;

/** `handler` inside `wraps`, the first of them outermost. */
export function compose<In, Out>(
  wraps: readonly Wrap<In, Out>[],
  handler: (input: In) => Out,
): (input: In) => Out {
  let composed = handler;
  for (let index = wraps.length - 1; index >= 0; index--) composed = wraps[index](composed);
  return composed;
}
