// Hostile arguments for the validator, generated (never checked in at full size): each
// shape is one a client can send under --max-message-bytes that made the unpatched
// validator take seconds to hours or crash the process. Shared by the tests (run in a
// Worker with a hang guard, tests/_hostile_worker.ts) and bench/validation_bounds_bench.ts.
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { JsonObject } from "../lib/util/json.ts";

export interface Shape {
  /** What the shape is, for test and bench names. */
  name: string;
  /** The tool's inputSchema, as an innocent author writes it. */
  schema: JsonObject;
  /** The hostile arguments. */
  hostile(size: number): JsonObject;
  /** Arguments of about the same JSON size that the schema accepts. */
  benign(size: number): JsonObject;
}

const listOf = (items: JsonObject): JsonObject => ({
  type: "object",
  properties: { list: { type: "array", ...items } },
});

/**
 * A recursive node whose two branches both descend into `children` before the property
 * that tells them apart (listed after it), so each level doubles the work.
 */
const branch = (kind: string): JsonObject => ({
  type: "object",
  properties: {
    children: { type: "array", items: { $ref: "#/$defs/node" } },
    kind: { const: kind },
  },
});
const TREE: JsonObject = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  $defs: { node: { oneOf: [branch("a"), branch("b")] } },
};

/** A chain of nodes `depth` deep, each with the fields named. */
function chain(depth: number, fields: JsonObject): JsonObject {
  let node: JsonObject = { ...fields };
  for (let i = 0; i < depth; i++) node = { ...fields, children: [node] };
  return node;
}

export const SHAPES: readonly Shape[] = [
  {
    // Every item fails, so an error-collecting validator keeps millions of errors.
    name: "error flood (every item fails)",
    schema: listOf({ items: { type: "string" } }),
    hostile: (size) => ({ list: new Array(Math.floor(size / 2)).fill(0) }),
    benign: (size) => ({ list: new Array(Math.floor(size / 4)).fill("a") }),
  },
  {
    // Pairwise comparison is quadratic in the number of items.
    name: "uniqueItems on distinct strings",
    schema: listOf({ uniqueItems: true, items: { type: "string" } }),
    hostile: (size) => ({
      list: Array.from({ length: Math.floor(size / 10) }, (_, i) => `s${i}`.padStart(7, "0")),
    }),
    // The worst case of uniqueItems is valid input: every item differs from every other.
    benign: (size) => ({
      list: Array.from({ length: Math.floor(size / 10) }, (_, i) => `t${i}`.padStart(7, "0")),
    }),
  },
  {
    // The unpatched "url" format regex backtracks exponentially on a long host name.
    name: 'format "url" on a long host name',
    schema: { type: "object", properties: { link: { type: "string", format: "url" } } },
    hostile: (size) => ({ link: `http://${"a".repeat(size)}\u0000` }),
    benign: (size) => ({ link: `http://example.com/${"a".repeat(size)}` }),
  },
  {
    // Both oneOf branches descend into the same children: 2^depth schema applications.
    name: "recursive oneOf, both branches descending",
    schema: TREE,
    hostile: (size) => ({ root: chain(Math.min(Math.floor(size / 30), 40), { kind: "x" }) }),
    benign: (size) => ({
      // Distinct objects, as a parse makes them (a shared one would be a memo hit).
      root: {
        kind: "a",
        children: Array.from({ length: Math.floor(size / 12) }, () => ({ kind: "a" })),
      },
    }),
  },
];

/** The name of the tool that takes shape `index`'s arguments (see hostileTools()). */
export const hostileToolName = (index: number): string => `hostile${index}`;

/** One tool per shape, with the shape's schema, for the fuzzer's in-process server. */
export function hostileTools(): Tool[] {
  return SHAPES.map((shape, index) =>
    checkDefinition(
      { description: shape.name, inputSchema: shape.schema, handler: () => "accepted" },
      hostileToolName(index),
      `tests/_hostile_shapes.ts#${index}`,
    )
  );
}
