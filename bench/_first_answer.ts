// Spawn → first answer, for the start-up benches (startup.ts, tool_cost.ts): a fresh `deno`
// process is sent one 2026-07-28 `tools/list` line, and timed until its first line of output,
// which must be the answer.

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const FIRST_LINE = new TextEncoder().encode(
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }) + "\n",
);

/** What one start measured: milliseconds to the answer, and /proc's status and stat then. */
export interface FirstAnswer {
  readonly ms: number;
  readonly status: string;
  /** /proc/PID/stat: the page faults among its fields. */
  readonly stat: string;
}

/** Runs `deno ARGS` in `cwd`, times its answer to a first `tools/list`, then ends it. */
export async function firstAnswer(args: string[], cwd: string): Promise<FirstAnswer> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(FIRST_LINE);
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`deno ${args.join(" ")} ended before answering`);
    text += decoder.decode(value, { stream: true });
  }
  const ms = performance.now() - started;
  if (!text.startsWith('{"jsonrpc":"2.0","id":1,"result":')) {
    throw new Error(`deno ${args.join(" ")} answered: ${text.slice(0, 200)}`);
  }
  const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
  const stat = await Deno.readTextFile(`/proc/${child.pid}/stat`);
  await writer.close();
  reader.releaseLock();
  await child.stdout.cancel();
  await child.status;
  return { ms, status, stat };
}
