// The stdout guard (lib/host/stdout_guard.ts) at the descriptor, in a real main.ts process with
// `-A` over pipes: what a tool writes to stdout by the ways the API fallback cannot stop (a
// child process inheriting stdout, a Worker, /dev/stdout, descriptor 1 itself) reaches stderr,
// and stdout carries only the answers. (The console, Deno.stdout and process.stdout are
// tests/transcripts/careless_tools.txt's.)
import { deepStrictEqual, ok } from "node:assert/strict";
import { withDir } from "./_scratch_dir.ts";
import { spawnServer, STATELESS_META, withHangGuard } from "./_server_process.ts";

const LEAKY = `
export default {
  description: "Writes to stdout in the ways only the descriptor can stop",
  inputSchema: { type: "object" },
  handler: async () => {
    await new Deno.Command("sh", {
      args: ["-c", "echo from a child that inherits stdout"],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    const child = new Deno.Command("sh", { args: ["-c", "echo from a spawned child"] }).spawn();
    await child.status;
    Deno.writeTextFileSync("/dev/stdout", "from /dev/stdout\\n");
    const worker = new Worker(
      "data:text/javascript," + encodeURIComponent(
        'Deno.stdout.writeSync(new TextEncoder().encode("from a worker\\\\n")); postMessage(1);',
      ),
      { type: "module" },
    );
    await new Promise((resolve) => worker.onmessage = resolve);
    worker.terminate();
    return "answered";
  },
};
`;

Deno.test({
  name: "the stdout guard keeps children, Workers and /dev/stdout off the protocol stream",
  // At the descriptor only where FFI can move it (lib/host/stdout_guard.ts).
  ignore: Deno.build.os !== "linux" && Deno.build.os !== "darwin",
  fn: () =>
    withDir({ "tools/leaky.ts": LEAKY }, async (dir) => {
      const server = spawnServer(["--tools", `${dir}/tools`]);
      await server.send(JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "leaky", _meta: STATELESS_META },
      }));
      const first = await withHangGuard(server.nextLine(), "the call of leaky");
      const { code, rest, stderr } = await server.finish();
      const lines = first === null ? rest : [first, ...rest];
      deepStrictEqual(lines.filter((line) => !line.startsWith('{"jsonrpc":"2.0"')), []);
      deepStrictEqual(lines.length, 1);
      deepStrictEqual(JSON.parse(lines[0]).result.content, [{ type: "text", text: "answered" }]);
      deepStrictEqual(code, 0);
      for (
        const stray of [
          "from a child that inherits stdout",
          "from a spawned child",
          "from /dev/stdout",
          "from a worker",
        ]
      ) ok(stderr.includes(stray), `"${stray}" did not reach stderr: ${stderr}`);
    }),
});
