// Evidence for adr/0073 (issue 41): a run of code mode through the server, request to answer —
// `tools/call run_code` taken by the core (createServer's `request`, 2026-07-28) as a client's
// would be, its child run, its inner calls back through the core as the caller's, its result
// checked and bounded — against the same work as plain `tools/call`s (the baseline: what a model
// calling the tool directly costs the server). With no pool (a child started per run) and a
// pool of 2 (children started ahead). Between iterations, outside the timed part, each bench
// waits REFILL_MS so that a pool is full again, as it is for runs spaced by a model's turns.
//
//   deno bench -A bench/code_run_bench.ts
import { createServer } from "../mod.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";

/** Time for a pool to refill between runs (not measured). */
const REFILL_MS = 500;

const add = checkDefinition(
  {
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  },
  "add",
  "add.ts",
);

const TEN_CALLS =
  "let sum = 0;\nfor (let i = 0; i < 10; i++) sum = (await tools.add({ a: sum, b: i })).sum;\nreturn sum;";

const servers = {
  "no pool": await createServer({ primitives: { tools: [add] }, codeMode: true, codePool: 0 }),
  "pool of 2": await createServer({ primitives: { tools: [add] }, codeMode: true, codePool: 2 }),
};
globalThis.addEventListener("unload", () => {
  for (const server of Object.values(servers)) server.close();
});

const pause = () => new Promise((resolve) => setTimeout(resolve, REFILL_MS));

type Server = (typeof servers)["no pool"];

async function run(server: Server, code: string): Promise<unknown> {
  const answer = await server.request("tools/call", { name: "run_code", arguments: { code } });
  const result = answer.result as { isError?: boolean; structuredContent?: { value: unknown } };
  if (result?.isError || result?.structuredContent === undefined) {
    throw new Error(`the run failed: ${JSON.stringify(answer)}`);
  }
  return result.structuredContent.value;
}

async function direct(server: Server, calls: number): Promise<number> {
  let sum = 0;
  for (let i = 0; i < calls; i++) {
    const answer = await server.request("tools/call", {
      name: "add",
      arguments: { a: sum, b: i },
    });
    sum = (answer.result as { structuredContent: { sum: number } }).structuredContent.sum;
  }
  return sum;
}

for (
  const [group, code, calls, value] of [
    ["return 1", "return 1", 1, 1],
    ["10 inner calls", TEN_CALLS, 10, 45],
  ] as const
) {
  // The baseline is served without code mode's view: the plain catalog, as /mcp serves it.
  const plain = await createServer({ primitives: { tools: [add] } });
  globalThis.addEventListener("unload", () => plain.close());
  Deno.bench(
    `${calls} direct tools/call of add (the baseline)`,
    { group, baseline: true, n: 20, warmup: 2 },
    async (b) => {
      await pause();
      b.start();
      const sum = await direct(plain, calls);
      b.end();
      if (calls === 10 && sum !== value) throw new Error(`unexpected sum ${sum}`);
    },
  );
  for (const [name, server] of Object.entries(servers)) {
    Deno.bench(`tools/call run_code, ${name}`, { group, n: 20, warmup: 2 }, async (b) => {
      await pause();
      b.start();
      const got = await run(server, code);
      b.end();
      if (got !== value) throw new Error(`unexpected value ${JSON.stringify(got)}`);
    });
  }
}
