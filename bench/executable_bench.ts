// Evidence for adr/0007: what toolshed adds to each call of an executable tool, over a
// bare spawn of the same program. Both sides spawn tests/fixtures/exec_tools/cat_stdin
// (`#!/bin/sh` + `exec cat`), write the same JSON arguments to its stdin, read its stdout
// and wait for it to exit. toolshed adds: argument validation, the environment, a new
// session (setsid), the abort listener, stderr forwarding, the output cap, the group
// SIGKILL after exit, and the result's shape check in callTool().
//
//   deno bench -A bench/executable_bench.ts
import { executableHandler } from "../lib/programs/executable.ts";
import { callTool } from "../lib/primitives/tool_call.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { DEFAULT_LOAD_OPTIONS, loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "../tests/_diagnostics.ts";

const DIR = decodeURIComponent(new URL("../tests/fixtures/exec_tools", import.meta.url).pathname);
const PROGRAM = `${DIR}/cat_stdin`;
const ARGS = { query: "deno mcp server", limit: 10, filters: [{ field: "title", value: "x" }] };

const registry = await loadTools(DIR, { diagnostics: recorder() });
const tool = registry.byName.get("cat_stdin")!;
// The same tool started with Deno.Command's `detached` (the fallback where no setsid exists).
const detached = checkDefinition(
  {
    description: "cat_stdin, detached",
    inputSchema: { type: "object" },
    handler: executableHandler({
      diagnostics: recorder(),
      program: PROGRAM,
      file: "cat_stdin",
      passEnv: [],
      maxOutputBytes: DEFAULT_LOAD_OPTIONS.maxOutputBytes,
      launcher: "detached",
    }),
  },
  "cat_stdin",
  "cat_stdin.json",
);
const options = {
  controller: new AbortController(),
  defaultTimeoutMs: 60_000,
  diagnostics: recorder(),
  context: {
    requestId: 1,
    protocolVersion: "2026-07-28",
    clientInfo: { name: "bench", version: "1" },
    clientCapabilities: {},
  },
};
const encoder = new TextEncoder();

Deno.bench("bare Deno.Command spawn", { group: "one call", baseline: true }, async () => {
  const child = new Deno.Command(PROGRAM, {
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(encoder.encode(JSON.stringify(ARGS)));
  await writer.close();
  const { stdout } = await child.output();
  if (new TextDecoder().decode(stdout) !== JSON.stringify(ARGS)) throw new Error("bad output");
});

for (const [name, subject] of [["setsid", tool], ["detached", detached]] as const) {
  Deno.bench(`toolshed callTool, launcher "${name}"`, { group: "one call" }, async () => {
    const result = await callTool(subject, structuredClone(ARGS), options);
    if ((result.content[0] as { text: string }).text !== JSON.stringify(ARGS)) {
      throw new Error("bad output");
    }
  });
}
