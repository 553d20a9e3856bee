// lib/code/declarations.ts (adr/0073 decision 3): a catalog as TypeScript declarations. Each
// construct of the JSON Schema subset tools use is held to its exact text; every example
// directory's tools, loaded in process as the server loads them, to its golden file in
// tests/fixtures/declarations/; the limits to what they say. That the texts type-check, and
// that the types refuse the calls the schemas refuse, is tests/code_declarations_check_test.ts's.
//
// `deno test -A tests/code_declarations_test.ts -- --update` rewrites the golden files from what
// declarationsOf() writes now, for a person to review with `git diff`.
import assert from "node:assert/strict";
import {
  declarationsOf,
  MAX_DECLARATIONS_CHARS,
  UNSTRUCTURED_RESULT,
} from "../lib/code/declarations.ts";
import { MAX_COMMENT_VALUE, MAX_SCHEMA_DEPTH } from "../lib/code/schema_type.ts";
import {
  CONSTRUCTS,
  examplesWithTools,
  exampleTools,
  GOLDEN_DIR,
  GOLDEN_HEADER,
  goldenDeclarations,
  goldenFile,
  toolOf,
} from "./_declarations.ts";

const UPDATE = Deno.args.includes("--update");
const RETURNS = `   * @returns ${UNSTRUCTURED_RESULT.note}`;

Deno.test("declarationsOf() writes title and description as JSDoc, arguments from inputSchema, the result from outputSchema", () => {
  assert.equal(
    declarationsOf(CONSTRUCTS.basic()),
    String.raw`declare const tools: {
  /**
   * Add: Adds two numbers.
   * Both must be finite.
   */
  add(args: {
    /** First */
    a: number;
    /** @integer */
    b?: number;
  }): Promise<AddResult>;
};

/** The sum */
type AddResult = {
  sum: number;
};
`,
  );
});

Deno.test("declarationsOf() quotes names that are not identifiers, and a tool without outputSchema returns the unstructured type with its note", () => {
  assert.equal(UNSTRUCTURED_RESULT.type, "unknown");
  assert.equal(
    declarationsOf(CONSTRUCTS.names()),
    String.raw`declare const tools: {
  /** D */
  "9lives"(args?: Record<string, never>): Promise<T9livesResult>;
  /**
   * D
   *
${RETURNS}
   */
  "tool-with-dash"(args?: {
    "content-type"?: string;
    "new"?: string;
    "2x"?: boolean;
    ok_name?: null;
  }): Promise<unknown>;
};

type T9livesResult = { [key: string]: unknown };
`,
  );
});

Deno.test("declarationsOf() writes enum and const as JSON literals, once each, and a type list as a union", () => {
  assert.equal(
    declarationsOf(CONSTRUCTS.literals()),
    String.raw`declare const tools: {
  /**
   * D
   *
${RETURNS}
   */
  pick(args: {
    choice: "a\"b" | "line\nbreak" | "*/" | 1 | -2.5 | true | null;
    fixed?: {"k":[1]};
    maybe?: string | null;
    none?: never;
  }): Promise<unknown>;
};
`,
  );
});

Deno.test("declarationsOf() writes anyOf and oneOf as unions, allOf as an intersection, a member's keywords in a comment", () => {
  assert.equal(
    declarationsOf(CONSTRUCTS.unions()),
    String.raw`declare const tools: {
  /**
   * D
   *
${RETURNS}
   */
  mix(args?: {
    any?: string | (/* @minimum 0 */ number);
    one?: {
      kind: "a";
    } | {
      kind: "b";
      /** @integer */
      size: number;
    };
    all?: {
      x?: number;
    } & {
      y?: number;
    };
    loose?: unknown;
  }): Promise<unknown>;
};
`,
  );
});

Deno.test("declarationsOf() writes additionalProperties and patternProperties as index signatures that admit the named properties, or say them when a property is an object", () => {
  assert.equal(
    declarationsOf(CONSTRUCTS.objects()),
    String.raw`declare const tools: {
  /**
   * D
   *
${RETURNS}
   */
  shape(args?: {
    closed?: {
      a?: string;
    };
    map?: { [key: string]: number };
    mixed?: {
      id: string;
      rank?: number;
      [key: string]: boolean | string | number | undefined;
    };
    patterned?: {
      /** keys matching ^x- */
      [key: string]: string;
    };
    open?: { [key: string]: unknown };
    empty?: Record<string, never>;
    needs?: {
      q: unknown;
    };
    deep?: {
      inner?: {
        x?: number;
      };
      /** other keys: string */
      [key: string]: unknown;
    };
  }): Promise<unknown>;
};
`,
  );
});

Deno.test("declarationsOf() writes arrays, prefixItems as tuples optional past minItems, and draft-07 items lists", () => {
  assert.equal(
    declarationsOf([...CONSTRUCTS.arrays(), ...CONSTRUCTS.draft7()]),
    String.raw`declare const tools: {
  /**
   * D
   *
${RETURNS}
   */
  lists(args?: {
    /** @uniqueItems true */
    tags?: Array</* @pattern ^[a-z]+$ */ string>;
    /** @minItems 2 */
    pair?: [number, string, boolean?];
    anything?: unknown[];
    nested?: Array<string | number>[];
    objs?: Array<{
      n?: number;
    }>;
  }): Promise<unknown>;
  /**
   * D
   *
${RETURNS}
   */
  old(args?: {
    old?: [string?, ...number[]];
  }): Promise<unknown>;
};
`,
  );
});

Deno.test("declarationsOf() names each tool's $defs, definitions and root refs apart, declares only the types reached, and recursion goes through the names", () => {
  assert.equal(
    declarationsOf(CONSTRUCTS.refs()),
    String.raw`declare const tools: {
  /** D */
  list(args?: {
    item?: List_Item;
  }): Promise<ListResult>;
  /** D */
  tree(args?: TreeArgs): Promise<TreeResult>;
};

type ListResult = {
  item?: List_Item_2;
};

type List_Item = string;

type List_Item_2 = boolean;

type TreeResult = {
  item?: Tree_Item;
  again?: TreeResult;
};

/** A node */
type Tree_Node = {
  children: Tree_Node[];
  leaf?: Tree_Leaf;
};

/** @format uuid */
type Tree_Leaf = string;

type TreeArgs = {
  root?: Tree_Node;
  leaf?: Tree_Leaf;
  self?: TreeArgs;
};

type Tree_Item = number;
`,
  );
});

Deno.test("declarationsOf() writes the true and empty schemas as unknown and the false schema as never", () => {
  assert.equal(
    declarationsOf(CONSTRUCTS.bools()),
    String.raw`declare const tools: {
  /**
   * D
   *
${RETURNS}
   */
  flags(args?: {
    x?: unknown;
    y?: never;
    z?: unknown;
  }): Promise<unknown>;
};
`,
  );
});

Deno.test("declarationsOf() keeps in JSDoc what TypeScript cannot say, and no text ends a comment early", () => {
  const text = declarationsOf(CONSTRUCTS.docs());
  assert.equal(
    text,
    String.raw`declare const tools: {
  /**
   * Doc *\/ title: Ends a comment *\/ here
   *
   *   Second /* paragraph
   * third
   *
${RETURNS}
   */
  doc(args: {
    /**
     * When *\/
     * @format date-time
     * @default "now"
     * @example "2026-01-01T00:00:00Z"
     * @example "*\/"
     * @deprecated
     */
    when?: string;
    /**
     * @pattern ^a*\/b$
     * @minLength 1
     * @maxLength 9
     */
    code: string;
    /**
     * @exclusiveMinimum 0
     * @multipleOf 0.5
     * @not {"const":3}
     */
    n?: number;
  }): Promise<unknown>;
};
`,
  );
});

Deno.test("declarationsOf() gives the same text whatever order the tools come in", () => {
  const tools = Object.values(CONSTRUCTS).flatMap((make) => make());
  const text = declarationsOf(tools);
  assert.equal(declarationsOf([...tools].reverse()), text);
  const shuffled = tools.map((tool, i) => ({ tool, key: (i * 7919) % tools.length }))
    .sort((a, b) => a.key - b.key).map(({ tool }) => tool);
  assert.notDeepEqual(shuffled.map((tool) => tool.name), tools.map((tool) => tool.name));
  assert.equal(declarationsOf(shuffled), text);
});

Deno.test("declarationsOf() declares a schema nested past MAX_SCHEMA_DEPTH as unknown there and says so", () => {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < MAX_SCHEMA_DEPTH + 8; i++) {
    schema = { type: "object", properties: { next: schema }, required: ["next"] };
  }
  const text = declarationsOf([toolOf("deep", { inputSchema: schema })]);
  const said = `unknown /* nested deeper than ${MAX_SCHEMA_DEPTH} schemas: not declared */`;
  assert.equal(text.split(said).length, 2, text);
  // The root's own object and then MAX_SCHEMA_DEPTH nested ones are written out.
  assert.equal(text.match(/next: \{$/gm)?.length, MAX_SCHEMA_DEPTH);
  assert.ok(!text.includes("next: string;"), "nothing past the limit is declared");
});

Deno.test("declarationsOf() stops at MAX_DECLARATIONS_CHARS and names the tools left out", () => {
  // Each tool's description alone is a tenth of the limit: ten fit, barely not the eleventh.
  const description = "x".repeat(Math.floor(MAX_DECLARATIONS_CHARS / 10) - 200);
  const tools = Array.from(
    { length: 14 },
    (_, i) =>
      toolOf(`t${String(i).padStart(2, "0")}`, { description, inputSchema: { type: "object" } }),
  );
  const text = declarationsOf(tools);
  assert.ok(text.length <= MAX_DECLARATIONS_CHARS + 1_000, `${text.length} characters`);
  assert.equal(text.match(/^ {2}t\d\d\(/gm)?.length, 10);
  assert.ok(
    text.endsWith(
      `\n// 4 more tool(s), "t10" and after it in name order, are not declared here: these ` +
        `declarations reached their limit of ${MAX_DECLARATIONS_CHARS.toLocaleString("en-US")} ` +
        "characters (ask for fewer tools)\n",
    ),
    text.slice(-300),
  );
  assert.equal(declarationsOf(tools.slice(0, 10)), text.slice(0, text.indexOf("\n// 4 more")));
});

Deno.test("declarationsOf() of each example directory's tools is its golden file", async () => {
  const examples = await examplesWithTools();
  assert.ok(examples.length >= 10, `only ${examples.join(", ")}`);
  const failures: string[] = [];
  for (const name of examples) {
    const text = declarationsOf(await exampleTools(name));
    if (UPDATE) {
      await Deno.mkdir(GOLDEN_DIR, { recursive: true });
      await Deno.writeTextFile(goldenFile(name), GOLDEN_HEADER + text);
      // deno-lint-ignore no-console -- says which files update mode wrote
      console.log(`wrote tests/fixtures/declarations/${name}.d.ts`);
      continue;
    }
    let golden: string;
    try {
      golden = await goldenDeclarations(name);
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message} (write it with --update)`);
      continue;
    }
    if (golden !== text) failures.push(`${name}: differs from its golden file\n${text}`);
  }
  assert.deepEqual(failures, []);
});

Deno.test("tests/fixtures/declarations/ holds a golden file for an example directory's tools and nothing else", async () => {
  const examples = new Set(await examplesWithTools());
  const strays: string[] = [];
  for await (const entry of Deno.readDir(GOLDEN_DIR)) {
    if (!entry.name.endsWith(".d.ts") || !examples.has(entry.name.slice(0, -".d.ts".length))) {
      strays.push(entry.name);
    }
  }
  assert.deepEqual(strays, []);
});

Deno.test("declarationsOf() cuts a value kept in a comment at MAX_COMMENT_VALUE characters", () => {
  const long = "y".repeat(MAX_COMMENT_VALUE * 2);
  const text = declarationsOf([
    toolOf("cut", {
      inputSchema: { type: "object", properties: { a: { type: "string", default: long } } },
    }),
  ]);
  const kept = JSON.stringify(long).slice(0, MAX_COMMENT_VALUE);
  assert.ok(text.includes(`/** @default ${kept}… */`), text);
  assert.ok(!text.includes(`${kept}y`));
});

Deno.test("declarationsOf() writes each nested object once, so the text grows with the schema, not doubling per level", () => {
  const levels = 16;
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < levels; i++) {
    schema = {
      type: "object",
      properties: { a: schema, b: { type: "number" } },
      additionalProperties: { type: "boolean" },
    };
  }
  const text = declarationsOf([
    toolOf("nest", { inputSchema: { type: "object", properties: { top: schema } } }),
  ]);
  assert.equal(text.match(/ a\?: /g)?.length, levels);
  assert.equal(text.match(/\/\*\* other keys: boolean \*\//g)?.length, levels - 1);
  // The innermost object's properties are a string and a number: spelled in its signature.
  assert.equal(
    text.match(/\[key: string\]: boolean \| string \| number \| undefined;/g)?.length,
    1,
  );
});
