// What the server serves, as immutable snapshots: a request reads the current snapshot once
// when it starts and keeps it to its end, so a reload (a new snapshot swapped in) never
// shows a request half of one and half of the other, and calls in flight finish on the
// tools they started with.
import type { Tool } from "./tools.ts";
import type { Resource, ResourceTemplate } from "./resources.ts";
import type { Prompt } from "./prompts.ts";
import type { Middleware } from "./types.ts";
import type { Skill } from "./skills.ts";

/** Primitives of one kind, sorted by key (the order lists are paged in), and an index. */
export interface Catalog<P> {
  readonly items: readonly P[];
  /** `items`' keys, in the same order. */
  readonly keys: readonly string[];
  readonly byKey: ReadonlyMap<string, P>;
}

export interface Snapshot {
  /** Grows by one with every swap. */
  readonly version: number;
  readonly tools: Catalog<Tool>;
  /** By URI. */
  readonly resources: Catalog<Resource>;
  /** By name (the order of `resources/templates/list`); a read tries them in that order. */
  readonly templates: Catalog<ResourceTemplate>;
  readonly prompts: Catalog<Prompt>;
  /** By the URI of their SKILL.md (the skills extension; their files are also resources). */
  readonly skills: Catalog<Skill>;
  /** The server directory's middleware (`middleware/`), in file-name order, the first outermost. */
  readonly middleware: readonly Middleware[];
}

/** Resources, templates, prompts, skills and middleware: what a server directory holds besides tools. */
export interface OtherPrimitives {
  readonly resources?: readonly Resource[];
  readonly templates?: readonly ResourceTemplate[];
  readonly prompts?: readonly Prompt[];
  readonly skills?: readonly Skill[];
  readonly middleware?: readonly Middleware[];
}

export interface Registry {
  current(): Snapshot;
  /** Makes `next` current (one assignment), then tells the listeners. */
  swap(next: Omit<Snapshot, "version">): Snapshot;
  /** Calls `listener` after every swap; returns the function that stops it. */
  onChange(listener: (next: Snapshot, previous: Snapshot) => void): () => void;
}

/** A catalog of `items` under the keys `keyOf` gives; sorts a copy (UTF-16 code units). */
export function catalogOf<P>(items: readonly P[], keyOf: (item: P) => string): Catalog<P> {
  const sorted = [...items].sort((a, b) => {
    const [x, y] = [keyOf(a), keyOf(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const keys = sorted.map(keyOf);
  return Object.freeze({
    items: Object.freeze(sorted),
    keys: Object.freeze(keys),
    byKey: new Map(sorted.map((item, index) => [keys[index], item])),
  });
}

/** The catalogs of a snapshot from the primitives found. */
export function contentsOf(
  tools: readonly Tool[],
  others: OtherPrimitives = {},
): Omit<Snapshot, "version"> {
  return {
    tools: catalogOf(tools, (tool) => tool.name),
    resources: catalogOf(others.resources ?? [], (resource) => resource.uri),
    templates: catalogOf(others.templates ?? [], (template) => template.name),
    prompts: catalogOf(others.prompts ?? [], (prompt) => prompt.name),
    skills: catalogOf(others.skills ?? [], (skill) => skill.uri),
    middleware: Object.freeze([...others.middleware ?? []]),
  };
}

export function createRegistry(first: Omit<Snapshot, "version">): Registry {
  let current: Snapshot = Object.freeze({ ...first, version: 1 });
  const listeners = new Set<(next: Snapshot, previous: Snapshot) => void>();
  return {
    current: () => current,
    swap(next) {
      const previous = current;
      current = Object.freeze({ ...next, version: previous.version + 1 });
      for (const listener of listeners) listener(current, previous);
      return current;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
