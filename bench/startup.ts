// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// What the server directory costs at start-up: milliseconds from spawning `main.ts` to its
// answer to a first `tools/list`, serving bench/tools
// - alone (`--tools`),
// - beside empty resources/ and prompts/ folders (what an unused folder costs), and
// - beside the repository's example resources/ and prompts/ (a file resource, a template and
//   a Markdown prompt: the mime, uri-templates and yaml packages load).
// Interleaved rounds; medians, and each as a ratio to the first in the same run.
//
//   deno run -A bench/startup.ts [--rounds N]
import { parseArgs } from "../lib/host/args.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const TOOLS = `${ROOT}bench/tools`;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const FIRST_LINE = new TextEncoder().encode(
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }) + "\n",
);

/** Milliseconds until the first line of output, which must be the answer. */
async function timeToFirstAnswer(args: string[]): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(FIRST_LINE);
  const reader = child.stdout.getReader();
  let text = "";
  const decoder = new TextDecoder();
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`main.ts ${args.join(" ")} ended before answering`);
    text += decoder.decode(value, { stream: true });
  }
  const elapsed = performance.now() - started;
  if (!text.startsWith('{"jsonrpc":"2.0","id":1,"result":')) {
    throw new Error(`main.ts ${args.join(" ")} answered: ${text.slice(0, 200)}`);
  }
  await writer.close();
  reader.releaseLock();
  await child.stdout.cancel();
  await child.status;
  return elapsed;
}

const { values } = parseArgs({ args: Deno.args, options: { rounds: { type: "string" } } });
const rounds = Number(values.rounds ?? "9");
const empty = await Deno.makeTempDir({ prefix: "toolshed_startup_" });
await Deno.mkdir(`${empty}/resources`);
await Deno.mkdir(`${empty}/prompts`);
const contestants: [string, string[]][] = [
  ["tools alone", ["--tools", TOOLS]],
  ["+ empty resources/ and prompts/", ["--dir", empty, "--tools", TOOLS]],
  ["+ the example resources/ and prompts/", ["--dir", ROOT, "--tools", TOOLS]],
];
const times = contestants.map(() => [] as number[]);
try {
  for (let round = 0; round < rounds; round++) {
    for (const [index, [, args]] of contestants.entries()) {
      times[index].push(await timeToFirstAnswer(args));
    }
  }
} finally {
  await Deno.remove(empty, { recursive: true });
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1];
const base = median(times[0]);
console.log(`Start-up to the first answer, median of ${rounds} interleaved rounds:`);
for (const [index, [label]] of contestants.entries()) {
  const ms = median(times[index]);
  console.log(`  ${label.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / base).toFixed(2)}×`);
}
