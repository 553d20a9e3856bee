// Bounded validation (issue 8, adr/0010): hostile arguments that made the unpatched
// validator run for minutes or crash the process are answered at about the cost of their
// size, and schemas that would fail every call are refused at start-up. Each hostile shape
// runs in a Worker behind a hang guard, so a regression fails instead of freezing the suite.
import assert from "node:assert/strict";
import {
  compileSchema,
  MAX_COLLECTED_ERRORS,
  UNMEMOISED_MESSAGE_STEPS,
} from "../lib/schema/compile.ts";
import { refuseUnsafePatterns } from "../lib/schema/pattern_safety.ts";
import { checkCallToolResult } from "../lib/schema/mcp_shapes.ts";
import { loadTools, ToolLoadError } from "../lib/discovery/tools_dir.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { SHAPES } from "./_hostile_shapes.ts";
import { withHangGuard } from "./_server_process.ts";
import { recorder } from "./_diagnostics.ts";

/** The message of a mismatch not found within the budget of a schema the validator cannot memoise. */
const UNLOCATED_UNMEMOISED = new RegExp(
  `^no place is named: .* more than the ${UNMEMOISED_MESSAGE_STEPS} steps`,
);

/** Validates a hostile shape in a Worker; the hang guard fails a validation that never ends. */
async function validateInWorker(name: string, size: number): Promise<string> {
  const worker = new Worker(new URL("./_hostile_worker.ts", import.meta.url), { type: "module" });
  try {
    const outcome = new Promise<string>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => reject(new Error(event.message));
    });
    worker.postMessage({ name, size });
    return await withHangGuard(outcome, `validating "${name}"`);
  } finally {
    worker.terminate();
  }
}

const MiB = 1024 * 1024;
const shape = (name: string) => SHAPES.find((candidate) => candidate.name.startsWith(name))!.name;

Deno.test("compileSchema() stops collecting errors at a bound: 4 million failing items", async () => {
  const outcome = await validateInWorker(shape("error flood"), 8 * MiB);
  assert.match(outcome, /^at "\/list\/0": expected a string, got a number/);
  assert.ok(outcome.endsWith("; and more"), outcome.slice(-80));
});

Deno.test("compileSchema() checks uniqueItems in one pass: 800,000 distinct strings", async () => {
  assert.equal(await validateInWorker(shape("uniqueItems"), 8 * MiB), "valid");
});

Deno.test('compileSchema() checks format "url" in linear time: a 1 MiB host name', async () => {
  assert.equal(await validateInWorker(shape('format "url"'), MiB), "valid");
});

Deno.test("compileSchema() checks each value once per referenced schema: branches that both descend", async () => {
  // 2^depth applications without the memo; with it, one per (definition, value).
  assert.match(
    await validateInWorker(shape("recursive oneOf"), MiB),
    /^at "\/root": must match exactly one of the "oneOf" choices/,
  );
});

/**
 * A tree of nodes whose two kinds both descend into the children before `kind` tells them
 * apart, under `unevaluatedProperties: false`.
 */
const UNEVALUATED_UNION: JsonObject = (() => {
  const node = (kind: string): JsonObject => ({
    type: "object",
    properties: {
      children: { type: "array", items: { $ref: "#/$defs/n" } },
      kind: { const: kind },
    },
  });
  return {
    type: "object",
    properties: { root: { $ref: "#/$defs/n" } },
    $defs: { n: { oneOf: [node("a"), node("b")], unevaluatedProperties: false } },
  };
})();

Deno.test("compileSchema() decides in linear time a union whose branches re-check the same values under unevaluatedProperties", () => {
  // `unevaluatedProperties` makes a result depend on the branch that reached the value, so the
  // validator remembers nothing: 2^40 applications, which only its budget of steps stops. The
  // compiled verdict remembers what a value below (which has a record of its own) gets.
  const schema = UNEVALUATED_UNION;
  const check = compileSchema(schema);
  const alone = compileSchema(schema, { fastPath: false });
  const chain = (depth: number, kind: (level: number) => string): JsonObject => {
    let deep: JsonObject = { kind: kind(0) };
    for (let i = 1; i <= depth; i++) deep = { kind: kind(i), children: [deep] };
    return deep;
  };
  // Valid: the verdict alone decides. The validator alone runs out of steps on it.
  const valid = { root: chain(40, (level) => level % 2 ? "a" : "b") };
  assert.equal(check(valid), undefined);
  assert.throws(
    () => alone(valid),
    /^ValidationTooCostly: checking them took more than 1\d{4} steps \(16 per value\)/,
  );
  // Invalid everywhere: the verdict says no at once, the message costs its fixed budget.
  assert.match(check({ root: chain(40, () => "x") }) ?? "", UNLOCATED_UNMEMOISED);
  // Invalid at a small depth: the place is named.
  assert.equal(
    check({ root: { kind: "a", children: [{ kind: "a", extra: 1 }] } }),
    alone({ root: { kind: "a", children: [{ kind: "a", extra: 1 }] } }),
  );
  // Linear: twice the depth, about twice the reads (2^20 times more if it doubled).
  const readsAt = (depth: number): number => {
    const reads = { count: 0 };
    assert.equal(
      check(counted({ root: chain(depth, (l) => l % 2 ? "a" : "b") }, reads)),
      undefined,
    );
    return reads.count;
  };
  assert.ok(
    readsAt(40) < 3 * readsAt(20),
    `${readsAt(20)} reads at depth 20, ${readsAt(40)} at 40`,
  );
});

Deno.test("compileSchema() names a mismatch under unevaluatedProperties within a budget that a small value cannot exhaust 2^depth times", () => {
  // The union above, wrong only at its deepest node: the verdict says no in one pass, and the
  // validator, which cannot memoise under unevaluatedProperties, needs ~23,000 steps to name
  // it at depth 10 (2^depth) and 5.9 million at depth 18. The message's budget is the same
  // at every depth, so a 300-byte argument no longer costs ~35 ms of the only thread.
  const check = compileSchema(UNEVALUATED_UNION);
  const wrongAtDepth = (depth: number): JsonObject => {
    let deep: JsonObject = { kind: "a", extra: 1 };
    for (let i = 0; i < depth; i++) deep = { kind: i % 2 ? "a" : "b", children: [deep] };
    return { root: deep };
  };
  // Shallow: named in full.
  assert.match(check(wrongAtDepth(2)) ?? "", /^at "\/root": must match exactly one/);
  // Deep: not named, and the work stays flat as the depth grows.
  const readsAt = (depth: number): number => {
    const reads = { count: 0 };
    assert.match(check(counted(wrongAtDepth(depth), reads)) ?? "", UNLOCATED_UNMEMOISED);
    return reads.count;
  };
  // Two attempts (every error, then the first) of at most UNMEMOISED_MESSAGE_STEPS each, a
  // step reading under one property on average here (10,000 steps read ~8,000).
  const [at10, at18] = [readsAt(10), readsAt(18)];
  assert.ok(
    Math.max(at10, at18) < 2 * UNMEMOISED_MESSAGE_STEPS,
    `${at10} reads at depth 10, ${at18} at depth 18`,
  );
});

/** `value` with every container behind a Proxy that counts the properties read from it. */
function counted(value: unknown, reads: { count: number }): unknown {
  if (typeof value !== "object" || value === null) return value;
  const copy: unknown = Array.isArray(value)
    ? value.map((item) => counted(item, reads))
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, counted(item, reads)]));
  return new Proxy(copy as object, {
    get(target, key, receiver) {
      reads.count++;
      return Reflect.get(target, key, receiver);
    },
  });
}

Deno.test("compileSchema() accepts a union whose branches both descend in work linear in its depth", () => {
  // Both branches descend into the children before the (nested) property that tells them
  // apart, so without remembering verdicts each level doubles the work. The value is valid:
  // the compiled verdict alone decides it.
  const node = (kind: string): JsonObject => ({
    type: "object",
    properties: {
      children: { type: "array", items: { $ref: "#/$defs/n" } },
      kind: { type: "object", properties: { is: { const: kind } } },
    },
  });
  const check = compileSchema({
    $ref: "#/$defs/n",
    $defs: { n: { oneOf: [node("a"), node("b")] } },
  });
  const readsAt = (depth: number): number => {
    let chain: JsonObject = { kind: { is: "a" } };
    for (let i = 0; i < depth; i++) chain = { kind: { is: "a" }, children: [chain] };
    const reads = { count: 0 };
    assert.equal(check(counted(chain, reads)), undefined);
    return reads.count;
  };
  // 2^10 times the reads if it doubled; about twice if it is linear.
  assert.ok(
    readsAt(20) < 3 * readsAt(10),
    `${readsAt(10)} reads at depth 10, ${readsAt(20)} at 20`,
  );
});

Deno.test("compileSchema() keeps validation results exact under the bounds", () => {
  const unique = compileSchema({ type: "array", uniqueItems: true });
  assert.equal(unique([1, "1", [1, 2], [2, 1], { a: 1, b: [2] }, { b: [2], a: 2 }]), undefined);
  assert.equal(
    unique([0, { a: 1, b: [2, { c: null }] }, "x", { b: [2, { c: null }], a: 1 }]),
    "items 1 and 3 are the same, and items must be unique",
  );
  assert.equal(unique([1, 1.0]), "items 0 and 1 are the same, and items must be unique");
  // A discriminated union of recursive nodes, the property that tells them apart first:
  // the branch that fails stops at it, so deep input is linear and accepted.
  const node = (kind: string): JsonObject => ({
    type: "object",
    properties: {
      kind: { const: kind },
      children: { type: "array", items: { $ref: "#/$defs/n" } },
    },
    required: ["kind"],
  });
  const tree = compileSchema({
    type: "object",
    properties: { root: { $ref: "#/$defs/n" } },
    $defs: { n: { oneOf: [node("a"), node("b")] } },
  });
  let deep: JsonObject = { kind: "a" };
  for (let i = 0; i < 100; i++) deep = { kind: i % 2 ? "a" : "b", children: [deep] };
  assert.equal(tree({ root: deep }), undefined);
  // Many failures: the first ten are shown, whatever the bound cut off is summarised.
  const strings = compileSchema({ type: "array", items: { type: "string" } });
  const message = strings(new Array(MAX_COLLECTED_ERRORS * 10).fill(0))!;
  assert.equal(message.split("; at").length, 10);
  assert.ok(message.endsWith("; and more"));
});

/** The message compileSchema throws for `schema`. */
function refusal(schema: JsonObject): string {
  assert.throws(() => compileSchema(schema));
  try {
    compileSchema(schema);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

Deno.test("compileSchema() refuses a schema that breaks its draft's meta-schema", () => {
  assert.equal(
    refusal({ type: "object", properties: { name: { type: "string" } }, required: "name" }),
    `it breaks its draft's meta-schema: at "/required": expected an array, got a string`,
  );
  assert.match(
    refusal({ type: "object", properties: { n: { type: "integer", minimum: "1" } } }),
    /^it breaks its draft's meta-schema: .*at "\/properties\/n\/minimum": expected a number, got a string/,
  );
  assert.match(
    refusal({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: [1] }),
    /^it breaks its draft's meta-schema: at "\/required\/0": /,
  );
});

Deno.test("compileSchema() refuses a pattern that does not compile with the u flag", () => {
  // Valid without the `u` flag, which the validator uses: a lone "]" and an escaped "-".
  for (const pattern of ["^[a-z]]$", "^a\\-b$"]) {
    assert.doesNotThrow(() => new RegExp(pattern));
    assert.match(
      refusal({ type: "object", properties: { s: { type: "string", pattern } } }),
      /^it breaks its draft's meta-schema: .*at "\/properties\/s\/pattern": is not a valid "regex"/,
    );
  }
  assert.match(
    refusal({ type: "object", patternProperties: { "^x]": { type: "string" } } }),
    /^it breaks its draft's meta-schema: at "\/patternProperties": /,
  );
});

Deno.test("compileSchema() refuses references that loop without descending into the value", () => {
  assert.equal(
    refusal({
      type: "object",
      properties: { x: { $ref: "#/$defs/a" } },
      $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } },
    }),
    "its references form a cycle that never descends into the value " +
      "(#/$defs/a → #/$defs/b → # → #/$defs/a), so validating anything would never end",
  );
  assert.match(refusal({ type: "object", anyOf: [{ $ref: "#" }] }), /form a cycle/);
  // Recursion through `properties` or `items` descends: it ends with the value.
  assert.doesNotThrow(() =>
    compileSchema({
      type: "object",
      properties: { next: { $ref: "#" }, list: { type: "array", items: { $ref: "#" } } },
    })
  );
});

Deno.test("refuseUnsafePatterns() refuses patterns that can backtrack catastrophically", async () => {
  const schema = (pattern: string): JsonObject => ({
    type: "object",
    properties: { s: { type: "string", pattern } },
  });
  for (const pattern of ["^(a+)+$", "^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$"]) {
    await assert.rejects(
      refuseUnsafePatterns(schema(pattern), "inputSchema"),
      new RegExp(
        `^Error: inputSchema has the pattern "${
          RegExp.escape(pattern)
        }", which can backtrack catastrophically \\(ReDoS\\)`,
      ),
    );
  }
  for (const pattern of ["^[a-z]+$", "^\\d{3}-\\d{4}$", "^#[0-9a-fA-F]{6}$", "^(https:|data:)"]) {
    await refuseUnsafePatterns(schema(pattern), "inputSchema");
  }
  // Each place a pattern may be is searched: a patternProperties key, a pattern under one, and
  // a pattern under $defs.
  const unsafe = "^(a+)+$";
  for (
    const schema of [
      { type: "object", patternProperties: { [unsafe]: { type: "string" } } },
      { type: "object", patternProperties: { "^x-": { type: "string", pattern: unsafe } } },
      { type: "object", $defs: { d: { propertyNames: { pattern: unsafe } } } },
    ]
  ) {
    await assert.rejects(
      refuseUnsafePatterns(schema, "inputSchema"),
      new RegExp(`has the pattern "${RegExp.escape(unsafe)}"`),
      JSON.stringify(schema),
    );
  }
});

Deno.test("loadTools() names the tool and the pattern that could stall the server", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_patterns_" });
  try {
    await Deno.writeTextFile(
      `${dir}/mail.ts`,
      `export default {
  description: "Sends mail",
  inputSchema: { type: "object", properties: { to: { type: "string", pattern: "^([a-z]+)*@x$" } } },
  handler: () => "sent",
};\n`,
    );
    const error = await loadTools(dir, { diagnostics: recorder() }).then(
      () => undefined,
      (error) => error,
    );
    assert.ok(error instanceof ToolLoadError);
    assert.equal(error.problems.length, 1);
    assert.match(
      error.problems[0],
      /^Cannot load tool ".*\/mail\.ts": inputSchema has the pattern "\^\(\[a-z\]\+\)\*@x\$", which can backtrack catastrophically/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkCallToolResult() stops at a bound: a million malformed content blocks", () => {
  const message = checkCallToolResult({ content: new Array(1_000_000).fill({ type: "text" }) })!;
  assert.match(message, /^at "\/content\/0": missing required property "text"/);
  assert.ok(message.endsWith("; and more"), message.slice(-80));
});

Deno.test("compileSchema() names the place of a mismatch within a budget that does not grow with the value", () => {
  const check = compileSchema({
    type: "object",
    properties: {
      list: {
        type: "array",
        items: {
          type: "object",
          properties: { id: { type: "integer" }, name: { type: "string" } },
          required: ["id", "name"],
        },
      },
    },
  });
  const list = Array.from({ length: 50_000 }, (_, id) => ({ id, name: `n${id}` }));
  // Wrong early in a large value: the place of the first mismatch is named, and no more.
  assert.equal(
    check({ list: [{ id: "x", name: "a" }, ...list] }),
    'at "/list/0/id": expected an integer, got a string ' +
      "(the first mismatch; checking stopped there)",
  );
  // Wrong at the end of 50,000 items: the verdict says no at once; naming the place would
  // take the validator over the whole value, so the message says that instead.
  assert.match(
    check({ list: [...list, { id: "x", name: "a" }] }) ?? "",
    /^no place is named: .* more than the 10000 steps/,
  );
  // A small value is always named in full.
  assert.equal(
    check({ list: [{ id: 1 }] }),
    'at "/list/0": missing required property "name"',
  );
});
