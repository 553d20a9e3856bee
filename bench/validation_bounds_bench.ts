// Evidence for adr/0010: what validating 1 MiB of arguments costs, for each hostile shape
// (tests/_hostile_shapes.ts) beside a benign value of about the same size against the same
// schema, and beside `JSON.parse` of the benign value's text (the baseline of its group: the
// cost a request pays before it is validated at all); each with the compiled verdict
// (lib/schema/fast.ts) and with the validator alone. Before the patches, the hostile side of
// every group took from seconds to hours, or crashed the process.
import { compileSchema } from "../lib/schema/compile.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { type Shape, SHAPES } from "../tests/_hostile_shapes.ts";

const SIZE = 1024 * 1024;

/** An ordinary payload, objects of a few typed fields, and the same with its last item wrong. */
const ORDINARY: Shape = {
  name: "ordinary objects of a few typed fields",
  schema: {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "integer", minimum: 0 },
            name: { type: "string", minLength: 1, maxLength: 100 },
            price: { type: "number" },
            tags: { type: "array", items: { type: "string" } },
            status: { enum: ["new", "used"] },
            active: { type: "boolean" },
          },
          required: ["id", "name"],
          additionalProperties: false,
        },
      },
    },
    required: ["items"],
  },
  // Not hostile: invalid at its very end, the case where the full validator runs after all.
  hostile: (size) => {
    const items = ordinaryItems(size);
    items[items.length - 1] = { ...items[items.length - 1], id: -1 };
    return { items };
  },
  benign: (size) => ({ items: ordinaryItems(size) }),
};

function ordinaryItems(size: number): JsonObject[] {
  return Array.from({ length: Math.floor(size / 100) }, (_, i) => ({
    id: i,
    name: `item ${i}`,
    price: i / 4,
    tags: ["a", "bc"],
    status: i % 2 ? "new" : "used",
    active: i % 3 === 0,
  }));
}

/**
 * Shapes of the schemas that read `unevaluated*` or `$recursiveRef`: a union whose branches
 * both descend into the same children before the property that tells them apart. Their
 * results depend on the branch that reached a value (the record of evaluated properties), so
 * the validator cannot remember them: 2^depth applications, stopped by its budget of steps.
 * The hostile value is valid: a chain `depth` deep, padded with leaves to the size asked;
 * the benign one the same leaves under one node.
 */
const unionNode = (kind: string, children: JsonObject): JsonObject => ({
  type: "object",
  properties: { children: { type: "array", items: children }, kind: { const: kind } },
});
const UNEVALUATED_TREE: JsonObject = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  $defs: {
    node: {
      oneOf: [unionNode("a", { $ref: "#/$defs/node" }), unionNode("b", { $ref: "#/$defs/node" })],
      unevaluatedProperties: false,
    },
  },
};
const RECURSIVE_TREE: JsonObject = {
  $schema: "https://json-schema.org/draft/2019-09/schema",
  $recursiveAnchor: true,
  type: "object",
  oneOf: [unionNode("a", { $recursiveRef: "#" }), unionNode("b", { $recursiveRef: "#" })],
};
/** A leaf of either tree, 12 bytes: `{"kind":"a"}`. */
const leaves = (size: number): JsonObject[] =>
  Array.from({ length: Math.floor(size / 13) }, () => ({ kind: "a" }));
/** A valid chain 30 nodes deep, its kinds alternating, the leaves under the deepest. */
function deepChain(size: number): JsonObject {
  let node: JsonObject = { kind: "a", children: leaves(size) };
  for (let i = 0; i < 30; i++) node = { kind: i % 2 ? "a" : "b", children: [node] };
  return node;
}
/** The same arrays, items discriminated by their second item, `unevaluatedItems` on them. */
const itemsNode = (kind: string): JsonObject => ({
  type: "array",
  prefixItems: [{ $ref: "#/$defs/node" }, { const: kind }],
});
const UNEVALUATED_ITEMS: JsonObject = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  $defs: {
    node: { anyOf: [itemsNode("a"), itemsNode("b")], unevaluatedItems: { type: "string" } },
  },
};
function deepItems(size: number): unknown[] {
  let node: unknown[] = [[], "a", ...new Array(Math.floor(size / 4)).fill("p")];
  for (let i = 0; i < 30; i++) node = [node, i % 2 ? "a" : "b"];
  return node;
}
const DYNAMIC_TREE: JsonObject = {
  $id: "https://example.com/tree",
  $dynamicAnchor: "node",
  type: "object",
  properties: {
    kind: { enum: ["a", "b"] },
    children: { type: "array", items: { $dynamicRef: "#node" } },
  },
};
const LATER_SHAPES: Shape[] = [
  {
    name: "recursive oneOf under unevaluatedProperties",
    schema: UNEVALUATED_TREE,
    hostile: (size) => ({ root: deepChain(size) }),
    benign: (size) => ({ root: { kind: "a", children: leaves(size) } }),
  },
  {
    // Invalid at its last leaf: the verdict says no, then the message's budget of steps
    // (UNMEMOISED_MESSAGE_STEPS) runs out and no place is named.
    name: "recursive oneOf under unevaluatedProperties, wrong at its last leaf",
    schema: UNEVALUATED_TREE,
    hostile: (size) => {
      const root = deepChain(size);
      let deepest = root;
      while ((deepest.children as JsonObject[]).length === 1) {
        deepest = (deepest.children as JsonObject[])[0];
      }
      const children = deepest.children as JsonObject[];
      children[children.length - 1] = { kind: "a", extra: 1 };
      return { root };
    },
    benign: (size) => ({ root: deepChain(size) }),
  },
  {
    name: "recursive anyOf under unevaluatedItems",
    schema: UNEVALUATED_ITEMS,
    hostile: (size) => ({ root: deepItems(size) }),
    benign: (size) => ({
      root: [[], "a", ...new Array(Math.floor(size / 4) + 90).fill("p")],
    }),
  },
  {
    name: "recursive oneOf through $recursiveRef (2019-09)",
    schema: RECURSIVE_TREE,
    hostile: (size) => deepChain(size),
    benign: (size) => ({ kind: "a", children: leaves(size) }),
  },
  {
    // The validator ignores `$dynamicRef` (it is not implemented upstream either): the items
    // are not checked at all, on either path.
    name: "tree through $dynamicRef",
    schema: DYNAMIC_TREE,
    hostile: (size) => deepChain(size),
    benign: (size) => ({ kind: "a", children: leaves(size) }),
  },
];

for (
  const [shape, other] of [
    ...SHAPES.map((shape) => [shape, "hostile"] as const),
    [ORDINARY, "invalid at the end"] as const,
    ...LATER_SHAPES.map((shape) => [shape, "hostile"] as const),
  ]
) {
  // Validated as the server receives them: straight from a parse.
  const text = JSON.stringify(shape.benign(SIZE));
  const benign = JSON.parse(text);
  const hostile = JSON.parse(JSON.stringify(shape.hostile(SIZE)));
  const sizeOf = (value: unknown) => `${(JSON.stringify(value).length / SIZE).toFixed(2)} MiB`;
  const options = { group: shape.name, n: 20, warmup: 5 };
  Deno.bench(`${shape.name}: JSON.parse of the benign text, ${sizeOf(benign)}`, {
    ...options,
    baseline: true,
  }, () => {
    JSON.parse(text);
  });
  // compileSchema() as the server runs it (the compiled verdict first), and the validator
  // alone, as it ran before the verdict path (adr/0027).
  for (const [how, fastPath] of [["", true], [", validator alone", false]] as const) {
    const check = compileSchema(shape.schema, { fastPath });
    const run = (value: unknown) => () => {
      try {
        check(value);
      } catch {
        // The budget of steps ran out: the call would be an isError result.
      }
    };
    Deno.bench(`${shape.name}: benign${how}, ${sizeOf(benign)}`, options, run(benign));
    Deno.bench(`${shape.name}: ${other}${how}, ${sizeOf(hostile)}`, options, run(hostile));
  }
}
