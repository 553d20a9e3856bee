// The stdout guard (lib/host/stdout_guard.ts) at the descriptor, in a real main.ts process with
// `-A`: what a tool writes to stdout by the ways the API fallback cannot stop (a child process
// inheriting stdout, a Worker, /dev/stdout) reaches stderr, and stdout carries only the answer;
// over pipes (as Deno and Python clients give) and over a socket (as Node.js clients give: the
// official TypeScript SDK, Claude Desktop). (The console, Deno.stdout, process.stdout and
// descriptor 1 itself are tests/transcripts/careless_tools.txt's.)
import { deepStrictEqual, ok } from "node:assert/strict";
import { withDir } from "./_scratch_dir.ts";
import { spawnServer, STATELESS_META, withHangGuard } from "./_server_process.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

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
    try {
      Deno.writeTextFileSync("/dev/stdout", "from /dev/stdout\\n");
    } catch {
      // A socket cannot be opened by its path: where stderr is one, /dev/stdout is refused.
    }
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
const STRAYS = ["from a child that inherits stdout", "from a spawned child", "from a worker"];
const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "leaky", _meta: STATELESS_META },
});

/** What a server's stdout and stderr held after the call of leaky, and how it exited. */
interface Seen {
  lines: string[];
  stderr: string;
  code: number;
}

function assertGuarded({ lines, stderr, code }: Seen, strays: string[]): void {
  deepStrictEqual(lines.filter((line) => !line.startsWith('{"jsonrpc":"2.0"')), []);
  deepStrictEqual(lines.length, 1);
  deepStrictEqual(JSON.parse(lines[0]).result.content, [{ type: "text", text: "answered" }]);
  for (const stray of strays) ok(stderr.includes(stray), `"${stray}" is not on stderr: ${stderr}`);
  deepStrictEqual(code, 0);
}

/** At the descriptor only where FFI can move it (lib/host/stdout_guard.ts). */
const MOVABLE = Deno.build.os === "linux" || Deno.build.os === "darwin";

Deno.test({
  name: "the stdout guard keeps children, Workers and /dev/stdout off a pipe",
  ignore: !MOVABLE,
  fn: () =>
    withDir({ "tools/leaky.ts": LEAKY }, async (dir) => {
      const server = spawnServer(["--tools", `${dir}/tools`]);
      await server.send(CALL);
      const first = await withHangGuard(server.nextLine(), "the call of leaky");
      const { code, rest, stderr } = await server.finish();
      const lines = first === null ? rest : [first, ...rest];
      assertGuarded({ lines, stderr, code }, [...STRAYS, "from /dev/stdout"]);
    }),
});

/** Node.js starts main.ts with its stdio on socket pairs, as every Node.js client does. */
const NODE_CLIENT = `
const { spawn } = require("node:child_process");
const [deno, main, tools, call] = process.argv.slice(1);
const child = spawn(deno, ["run", "-A", main, "--tools", tools], { stdio: "pipe" });
let stdout = "";
let stderr = "";
child.stdout.on("data", (data) => {
  stdout += data;
  if (stdout.includes('"id":1,')) child.stdin.end();
});
child.stderr.on("data", (data) => stderr += data);
child.on("close", (code) => process.stdout.write(JSON.stringify({ stdout, stderr, code })));
child.stdin.write(call + "\\n");
`;

Deno.test({
  name: "the stdout guard keeps children, Workers and /dev/stdout off a socket",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withDir({ "tools/leaky.ts": LEAKY }, async (dir) => {
      const node = new Deno.Command("node", {
        args: ["-e", NODE_CLIENT, Deno.execPath(), MAIN, `${dir}/tools`, CALL],
        stdout: "piped",
        stderr: "inherit",
      });
      const { stdout } = await withHangGuard(node.output(), "main.ts started by Node.js");
      const seen = JSON.parse(new TextDecoder().decode(stdout));
      const lines = seen.stdout.split("\n").filter((line: string) => line !== "");
      assertGuarded({ lines, stderr: seen.stderr, code: seen.code }, STRAYS);
    }),
});

/**
 * A client that hands the server the nonblocking end of a socket pair (Python here): answers
 * larger than the socket's buffer must wait for the client to read, not end the server.
 */
const NONBLOCKING_CLIENT = `
import json, socket, subprocess, sys
deno, main, tools, meta = sys.argv[1:]
parent, child = socket.socketpair()
child.setblocking(False)
server = subprocess.Popen([deno, "run", "-A", main, "--tools", tools], stdin=subprocess.PIPE,
    stdout=child.fileno(), stderr=subprocess.DEVNULL)
child.close()
text = "x" * 2_000_000
for i in range(4):
    call = {"name": "echo", "arguments": {"text": text}, "_meta": json.loads(meta)}
    line = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call}
    server.stdin.write((json.dumps(line) + "\\n").encode())
server.stdin.flush()
received = b""
parent.settimeout(60)
while received.count(b"\\n") < 4:
    chunk = parent.recv(1 << 20)
    if not chunk:
        break
    received += chunk
server.stdin.close()
answers = [json.loads(line) for line in received.split(b"\\n") if line]
intact = [a["result"]["content"][0]["text"] == text for a in answers]
print(json.dumps({"intact": intact, "code": server.wait(timeout=30)}))
`;

Deno.test({
  name: "the stdout guard waits on a nonblocking socket rather than taking it as closed",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const tools = new URL("./fixtures/tools", import.meta.url).pathname;
    const python = new Deno.Command("python3", {
      args: [
        "-c",
        NONBLOCKING_CLIENT,
        Deno.execPath(),
        MAIN,
        tools,
        JSON.stringify(STATELESS_META),
      ],
      stdout: "piped",
      stderr: "inherit",
    });
    const { stdout } = await withHangGuard(python.output(), "main.ts started by Python");
    deepStrictEqual(JSON.parse(new TextDecoder().decode(stdout)), {
      intact: [true, true, true, true],
      code: 0,
    });
  },
});
