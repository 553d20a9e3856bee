// What the tests of lib/code/declarations.ts share: the example directories with tools, each
// loaded in process as the server loads it, and their golden files in tests/fixtures/declarations/.
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { MountPlace } from "../lib/discovery/tools_dir.ts";
import { TABLE } from "../lib/settings/table.ts";
import { recorder } from "./_diagnostics.ts";
import { loadQuietly } from "./_in_process.ts";

const EXAMPLES = new URL("../examples/", import.meta.url);
export const GOLDEN_DIR = new URL("./fixtures/declarations/", import.meta.url);

/**
 * The first lines of a golden file, before the declarations: each golden declares the global
 * `tools`, so the repository's gate (fmt, lint, `deno check tests/`) leaves them alone, and the
 * tests check each one by itself.
 */
export const GOLDEN_HEADER = "// deno-fmt-ignore-file\n// deno-lint-ignore-file\n// @ts-nocheck " +
  "checked one by one in tests/code_declarations_check_test.ts (each declares `tools`)\n";

/** What the examples' READMEs have a reader set, so their mount and API files load. */
const EXAMPLE_ENV: Record<string, string> = {
  TEAM_URL: "http://127.0.0.1:9/mcp",
  TEAM_AUDIENCE: "https://team.example/mcp",
  EXCHANGE_CLIENT_ID: "toolshed-gateway",
  EXCHANGE_CLIENT_SECRET: "unused",
  PETSTORE_URL: "http://127.0.0.1:9",
  PETSTORE_API_KEY: "dev-key",
};

/** The examples with a tools/ folder, by name, sorted. */
export async function examplesWithTools(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(EXAMPLES)) {
    if (!entry.isDirectory) continue;
    try {
      if ((await Deno.stat(new URL(`${entry.name}/tools/`, EXAMPLES))).isDirectory) {
        names.push(entry.name);
      }
    } catch { /* no tools/ */ }
  }
  return names.sort();
}

/**
 * The tools of examples/`name` as loadTools() serves them. A mounted server is served from its
 * pins without its upstream (adr/0071), but the load starts a check against the upstream in the
 * background (`npx`, `toolshed`): with PATH an empty folder meanwhile, that check cannot start
 * one, so the test reaches nothing beyond loopback; the mounts are closed before PATH is back.
 */
export async function exampleTools(name: string): Promise<readonly Tool[]> {
  return await withEnvironment(
    EXAMPLE_ENV,
    () => loadIsolated(new URL(`${name}/tools/`, EXAMPLES)),
  );
}

/** The tools of a tools folder at `dir`, loaded as exampleTools() loads them. */
export function toolsOf(dir: string | URL): Promise<readonly Tool[]> {
  return loadIsolated(dir);
}

async function loadIsolated(dir: string | URL): Promise<readonly Tool[]> {
  const empty = await Deno.makeTempDir({ prefix: "toolshed_no_path_" });
  const mounts: MountPlace = { changed() {}, maxResourceBytes: TABLE.maxResourceBytes.default };
  try {
    return await withEnvironment({ PATH: empty }, async () => {
      try {
        const loaded = await loadQuietly(dir, { diagnostics: recorder(), mounts });
        return loaded.tools;
      } finally {
        await mounts.host?.close();
      }
    });
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
}

/** Runs `body` with `values` set in the environment, putting back what was there after. */
async function withEnvironment<T>(
  values: Record<string, string>,
  body: () => Promise<T>,
): Promise<T> {
  const before = Object.keys(values).map((key) => [key, Deno.env.get(key)] as const);
  for (const [key, value] of Object.entries(values)) Deno.env.set(key, value);
  try {
    return await body();
  } finally {
    for (const [key, value] of before) {
      if (value === undefined) Deno.env.delete(key);
      else Deno.env.set(key, value);
    }
  }
}

/** The golden file of examples/`name`. */
export function goldenFile(name: string): URL {
  return new URL(`${name}.d.ts`, GOLDEN_DIR);
}

/** The declarations a golden file holds (its text after GOLDEN_HEADER). */
export async function goldenDeclarations(name: string): Promise<string> {
  const text = await Deno.readTextFile(goldenFile(name));
  if (!text.startsWith(GOLDEN_HEADER)) {
    throw new Error(
      `The golden file "${goldenFile(name).pathname}" does not start with its header`,
    );
  }
  return text.slice(GOLDEN_HEADER.length);
}

/** A tool of `definition` (a description of "D" unless it says one), checked as loading checks it. */
export function toolOf(name: string, definition: Record<string, unknown>): Tool {
  return checkDefinition(
    { description: "D", ...definition, handler: () => "" },
    name,
    `tools/${name}.ts`,
  );
}

/**
 * One small catalog per construct the declarations render, by construct: the unit tests hold
 * each one's text, the check test holds calls to them to what deno check says.
 */
export const CONSTRUCTS = {
  basic: () => [
    toolOf("add", {
      title: "Add",
      description: "Adds two numbers.\nBoth must be finite.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number", description: "First" }, b: { type: "integer" } },
        required: ["a"],
      },
      outputSchema: {
        type: "object",
        description: "The sum",
        properties: { sum: { type: "number" } },
        required: ["sum"],
      },
    }),
  ],
  names: () => [
    toolOf("tool-with-dash", {
      inputSchema: {
        type: "object",
        properties: {
          "content-type": { type: "string" },
          new: { type: "string" },
          "2x": { type: "boolean" },
          ok_name: { type: "null" },
        },
      },
    }),
    toolOf("9lives", {
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      outputSchema: { type: "object" },
    }),
  ],
  literals: () => [
    toolOf("pick", {
      inputSchema: {
        type: "object",
        properties: {
          choice: { enum: ['a"b', "line\nbreak", "*/", 1, -2.5, true, null, 'a"b'] },
          fixed: { const: { k: [1] } },
          maybe: { type: ["string", "null"] },
          none: { enum: [] },
        },
        required: ["choice"],
      },
    }),
  ],
  unions: () => [
    toolOf("mix", {
      inputSchema: {
        type: "object",
        properties: {
          any: { anyOf: [{ type: "string" }, { type: "number", minimum: 0 }] },
          one: {
            oneOf: [
              { type: "object", properties: { kind: { const: "a" } }, required: ["kind"] },
              {
                type: "object",
                properties: { kind: { const: "b" }, size: { type: "integer" } },
                required: ["kind", "size"],
              },
            ],
          },
          all: {
            allOf: [
              { type: "object", properties: { x: { type: "number" } } },
              { type: "object", properties: { y: { type: "number" } } },
            ],
          },
          loose: { anyOf: [{ type: "string" }, {}] },
        },
      },
    }),
  ],
  objects: () => [
    toolOf("shape", {
      inputSchema: {
        type: "object",
        properties: {
          closed: {
            type: "object",
            properties: { a: { type: "string" } },
            additionalProperties: false,
          },
          map: { type: "object", additionalProperties: { type: "number" } },
          mixed: {
            type: "object",
            properties: { id: { type: "string" }, rank: { type: "number" } },
            required: ["id"],
            additionalProperties: { type: "boolean" },
          },
          patterned: {
            type: "object",
            patternProperties: { "^x-": { type: "string" } },
            additionalProperties: false,
          },
          open: { type: "object" },
          empty: { type: "object", additionalProperties: false },
          needs: { type: "object", required: ["q"] },
          deep: {
            type: "object",
            properties: { inner: { type: "object", properties: { x: { type: "number" } } } },
            additionalProperties: { type: "string" },
          },
        },
      },
    }),
  ],
  arrays: () => [
    toolOf("lists", {
      inputSchema: {
        type: "object",
        properties: {
          tags: {
            type: "array",
            items: { type: "string", pattern: "^[a-z]+$" },
            uniqueItems: true,
          },
          pair: {
            type: "array",
            prefixItems: [{ type: "number" }, { type: "string" }, { type: "boolean" }],
            minItems: 2,
            items: false,
          },
          anything: { type: "array" },
          nested: {
            type: "array",
            items: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
          },
          objs: { type: "array", items: { type: "object", properties: { n: { type: "number" } } } },
        },
      },
    }),
  ],
  draft7: () => [
    toolOf("old", {
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          old: { type: "array", items: [{ type: "string" }], additionalItems: { type: "number" } },
        },
        definitions: { Unused: { type: "string" } },
      },
    }),
  ],
  refs: () => [
    toolOf("tree", {
      inputSchema: {
        type: "object",
        properties: {
          root: { $ref: "#/$defs/Node" },
          leaf: { $ref: "#/definitions/Leaf" },
          self: { $ref: "#" },
        },
        $defs: {
          Node: {
            type: "object",
            description: "A node",
            properties: {
              children: { type: "array", items: { $ref: "#/$defs/Node" } },
              leaf: { $ref: "#/definitions/Leaf" },
            },
            required: ["children"],
          },
          Unused: { type: "string" },
        },
        definitions: { Leaf: { type: "string", format: "uuid" } },
      },
      outputSchema: {
        type: "object",
        properties: { item: { $ref: "#/$defs/Item" }, again: { $ref: "#" } },
        $defs: { Item: { type: "number" } },
      },
    }),
    toolOf("list", {
      inputSchema: {
        type: "object",
        properties: { item: { $ref: "#/$defs/Item" } },
        $defs: { Item: { type: "string" } },
      },
      outputSchema: {
        type: "object",
        properties: { item: { $ref: "#/$defs/Item" } },
        $defs: { Item: { type: "boolean" } },
      },
    }),
  ],
  bools: () => [
    toolOf("flags", { inputSchema: { type: "object", properties: { x: true, y: false, z: {} } } }),
  ],
  docs: () => [
    toolOf("doc", {
      title: "Doc */ title",
      description: "Ends a comment */ here\r\n\r\n  Second /* paragraph\u2028third",
      inputSchema: {
        type: "object",
        properties: {
          when: {
            type: "string",
            format: "date-time",
            description: "When */",
            default: "now",
            examples: ["2026-01-01T00:00:00Z", "*/"],
            deprecated: true,
          },
          code: { type: "string", pattern: "^a*/b$", minLength: 1, maxLength: 9 },
          n: { type: "number", exclusiveMinimum: 0, multipleOf: 0.5, not: { const: 3 } },
        },
        required: ["code"],
      },
    }),
  ],
} as const;
