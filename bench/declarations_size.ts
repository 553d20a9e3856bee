// deno-lint-ignore-file no-console -- a measurement prints its table for people
// What code mode's declarations (lib/code/declarations.ts, adr/0073 decision 3) weigh beside
// tools/list, on the largest OpenAPI document of @readme/oas-examples 8.2.2, star-trek.json
// (adr/0072's figures: 120 operations, 615,261 bytes of tools/list; 80 curated, 422,262):
// served whole (sidecar `"operations": ["*"]`) and curated (no `operations`: GET and HEAD).
// For each: the tools, the UTF-8 bytes of `{"tools":[…]}` as tools/list renders each tool, the
// bytes of declarationsOf() for all of them, the median bytes of one tool alone each way (what
// describe_tools answers for one name), and the median milliseconds declarationsOf() takes.
//
//   deno run -A bench/declarations_size.ts [--rounds N]
import "npm:@readme/oas-examples@8.2.2/3.0/json/petstore.json" with { type: "json" };
import { declarationsOf } from "../lib/code/declarations.ts";
import { statelessTool } from "../lib/methods/results.ts";
import type { Tool } from "../lib/primitives/tools.ts";
import { parseArgs } from "../lib/host/args.ts";
import { toolsOf } from "../tests/_declarations.ts";

const CORPUS = new URL(".", import.meta.resolve("npm:@readme/oas-examples@8.2.2/package.json"));
const { values } = parseArgs({ args: Deno.args, options: { rounds: { type: "string" } } });
const ROUNDS = Number(values.rounds ?? "5");
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 1_000) {
  throw new Error(`--rounds must be an integer from 1 to 1000, not "${values.rounds}"`);
}

const bytes = (text: string) => new TextEncoder().encode(text).length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const listBytes = (tools: readonly Tool[]) =>
  bytes(JSON.stringify({ tools: tools.map(statelessTool) }));

async function measure(label: string, sidecar: Record<string, unknown>): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_declarations_size_" });
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.copyFile(new URL("3.0/json/star-trek.json", CORPUS), `${dir}/tools/st.openapi.json`);
    await Deno.writeTextFile(`${dir}/tools/st.api.json`, JSON.stringify(sidecar));
    const tools = await toolsOf(`${dir}/tools`);
    const list = listBytes(tools);
    const text = declarationsOf(tools);
    const ms: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      declarationsOf(tools);
      ms.push(performance.now() - start);
    }
    const oneList = median(tools.map((tool) => listBytes([tool])));
    const oneDeclared = median(tools.map((tool) => bytes(declarationsOf([tool]))));
    const percent = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;
    return [
      label,
      String(tools.length),
      list.toLocaleString("en-US"),
      `${bytes(text).toLocaleString("en-US")} (${percent(bytes(text), list)})`,
      oneList.toLocaleString("en-US"),
      `${oneDeclared.toLocaleString("en-US")} (${percent(oneDeclared, oneList)})`,
      median(ms).toFixed(1),
    ];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const rows = [
  [
    "star-trek.json",
    "tools",
    "tools/list bytes",
    "declarations bytes",
    "one tool: list",
    "one tool: declared",
    "ms",
  ],
  await measure("all operations", {
    baseUrl: "https://stapi.co/api/v1/rest",
    operations: ["*"],
  }),
  await measure("curated (GET, HEAD)", { baseUrl: "https://stapi.co/api/v1/rest" }),
];
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join("  "));
