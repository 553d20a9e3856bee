// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// What hot reload costs (deno task bench:reload):
// - from a file change to the notification: `main.ts --dir D --watch` as a real process over
//   stdio, a 2025-11-25 session, a new tool file written, the time until
//   `notifications/tools/list_changed` arrives (the 100 ms debounce included), with 10 and with
//   1,000 tools in D;
// - the swap itself with 1,000 tools: building the snapshot's catalogs, swapping it, and working
//   out what a session is told, in this process.
// Medians of several rounds.
//
//   deno run -A bench/reload.ts [--rounds N]
import { parseArgs } from "../lib/host/args.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { contentsOf } from "../lib/primitives/registry.ts";
import { createServer } from "../lib/server/create_server.ts";
import { createSession } from "../lib/methods/session.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const { values } = parseArgs({ args: Deno.args, options: { rounds: { type: "string" } } });
const rounds = Number(values.rounds ?? "5");
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1];

const toolSource = (name: string) =>
  `export default { description: "Echoes for ${name}", inputSchema: { type: "object", ` +
  `properties: { text: { type: "string" } }, required: ["text"] }, handler: ({ text }) => text };\n`;

/** Milliseconds from writing a new tool to the list_changed notice, per round. */
async function changeToNotice(tools: number): Promise<number[]> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_reload_bench_" });
  await Deno.mkdir(`${dir}/tools`);
  for (let i = 0; i < tools; i++) {
    await Deno.writeTextFile(`${dir}/tools/t${i}.ts`, toolSource(`t${i}`));
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "--dir", dir, "--watch"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
    .getReader();
  const send = (message: object) =>
    writer.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"));
  const until = async (method: string) => {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`main.ts ended before ${method}`);
      if (JSON.parse(value).method === method || method === "any") return;
    }
  };
  const times: number[] = [];
  try {
    await send({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "b", version: "1" },
      },
    });
    await until("any");
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      await Deno.writeTextFile(`${dir}/tools/added${round}.ts`, toolSource(`added${round}`));
      await until("notifications/tools/list_changed");
      times.push(performance.now() - started);
    }
  } finally {
    await writer.close();
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
  return times;
}

function splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const part of parts) if (part !== "") controller.enqueue(part);
    },
  });
}

/** Microseconds of one swap with `count` tools: catalogs, swap, and a session's notices. */
async function swapCost(count: number): Promise<number[]> {
  // Two loads of the same tools: a reload builds new objects, compared field by field.
  const load = () =>
    Array.from({ length: count }, (_, i) =>
      checkDefinition(
        {
          description: `Tool ${i}`,
          inputSchema: { type: "object", properties: { text: { type: "string" } } },
          handler: () => "",
        },
        `tool_${i}`,
        `tool_${i}.ts`,
      ));
  const loads = [load(), load()];
  const { core, registry } = await createServer({
    primitives: { tools: loads[0] },
    pageSize: 100,
    toolTimeoutMs: 1_000,
    listChanged: true,
    diagnostics: { error() {}, forward() {} } as never,
  });
  const session = createSession();
  session.pin = {
    era: "session",
    client: {
      protocolVersion: "2025-11-25",
      clientCapabilities: {},
      clientInfo: undefined,
      keptBytes: 0,
    },
  };
  const times: number[] = [];
  for (let round = 0; round < 50; round++) {
    const started = performance.now();
    const previous = registry.current();
    const next = registry.swap(contentsOf(loads[(round + 1) % 2]));
    core.changeNotices(previous, next, session);
    times.push((performance.now() - started) * 1000);
  }
  return times;
}

const swap = median(await swapCost(1_000));
const small = median(await changeToNotice(10));
const large = median(await changeToNotice(1_000));
console.log(`Hot reload, medians (${rounds} rounds of each change, 50 swaps):`);
console.log(`  file change → tools/list_changed, 10 tools:    ${small.toFixed(0)} ms`);
console.log(`  file change → tools/list_changed, 1,000 tools: ${large.toFixed(0)} ms`);
console.log(`  snapshot swap with 1,000 tools (catalogs, swap, notices): ${swap.toFixed(0)} µs`);
