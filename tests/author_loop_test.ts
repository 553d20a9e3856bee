// The tool author's loop (adr/0020): testServer() runs an author's own directory through the
// real loader and request core in the test's process; a tools directory outside the
// repository imports `@toolshed/toolshed` and npm packages, and serving it with the
// documented command leaves toolshed's own deno.lock as it was.
import assert from "node:assert/strict";
import { McpError, testServer } from "../mod.ts";
import type { JsonObject } from "../mod.ts";

const REPO = new URL("../", import.meta.url);
const MAIN = decodeURIComponent(new URL("main.ts", REPO).pathname);
const LOCK = new URL("deno.lock", REPO);

/** A server directory outside the repository, with `files` (path under it → text). */
async function authorDir(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_author_" });
  for (const [path, text] of Object.entries(files)) {
    const slash = path.lastIndexOf("/");
    if (slash !== -1) await Deno.mkdir(`${dir}/${path.slice(0, slash)}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

const TOOLS = {
  // Types and a value from the stable specifier, as a tools directory anywhere may use them.
  "tools/add.ts": `import { defineTool } from "@toolshed/toolshed";
export default defineTool<{ a: number; b: number }>({
  description: "Adds two numbers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  handler: ({ a, b }) => ({ sum: a + b }),
});
`,
  "tools/refuse.ts": `import { McpError, type ToolDefinition } from "@toolshed/toolshed";
export default {
  description: "Refuses with a JSON-RPC error",
  inputSchema: { type: "object" },
  handler: () => {
    throw new McpError(-32603, "The ledger is unreachable", { retryAfterMs: 5000 });
  },
} satisfies ToolDefinition;
`,
  "tools/fail.ts": `export default {
  description: "Fails as designed",
  inputSchema: { type: "object" },
  handler: () => {
    throw new Error("Nothing to do");
  },
};
`,
  "tools/stall.ts": `export default {
  description: "Never answers unless cancelled",
  inputSchema: { type: "object" },
  timeoutMs: 50,
  handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
    new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
};
`,
  "tools/greet.ts": `import type { ToolDefinition } from "@toolshed/toolshed";
export default {
  description: "Asks the user's name, then greets them",
  inputSchema: { type: "object" },
  handler: async (_args, ctx) => {
    ctx.progress(1, 2, "asking");
    ctx.log("info", "asking for a name");
    const answer = await ctx.request("elicitation/create", {
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    const content = answer.content as { name?: string } | undefined;
    return answer.action === "accept" ? \`Hello, \${content?.name}!\` : "Hello, stranger!";
  },
} satisfies ToolDefinition;
`,
  "resources/status.ts": `import type { ResourceDefinition } from "@toolshed/toolshed";
export default {
  uri: "status://server",
  description: "The status",
  mimeType: "application/json",
  read: () => JSON.stringify({ ok: true }),
} satisfies ResourceDefinition;
`,
  "prompts/explain.ts": `export default {
  description: "Asks for an explanation",
  arguments: [{ name: "code", required: true }],
  get: ({ code }: { code: string }) => \`Explain \${code}\`,
};
`,
};

Deno.test("testServer() calls an author's tools through the server's validation and results", async () => {
  const dir = await authorDir(TOOLS);
  try {
    const server = await testServer({ dir });
    assert.deepEqual(await server.call("add", { a: 1, b: 2 }), {
      content: [{ type: "text", text: '{"sum":3}' }],
      structuredContent: { sum: 3 },
    });
    const refused = await server.call("add", { a: 1 });
    assert.equal(refused.isError, true);
    const [block] = refused.content as JsonObject[];
    assert.match(String(block.text), /"b"/);

    const failed = await server.call("fail");
    assert.deepEqual(failed, { content: [{ type: "text", text: "Nothing to do" }], isError: true });
    // The stack went where the server's stderr would be, not to the test's output.
    assert.match(server.diagnostics.join(""), /Nothing to do/);

    const names = (await server.list()).map((tool) => tool.name);
    assert.deepEqual(names.toSorted(), ["add", "fail", "greet", "refuse", "stall"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() rejects with the JSON-RPC error a tool throws, and on an unknown tool", async () => {
  const dir = await authorDir(TOOLS);
  try {
    const server = await testServer({ dir: new URL(`file://${dir}/`) });
    const error = await server.call("refuse").then(() => undefined, (error) => error);
    assert.ok(error instanceof McpError, String(error));
    assert.deepEqual(error.toRpcError(), {
      code: -32603,
      message: "The ledger is unreachable",
      data: { retryAfterMs: 5000 },
    });
    await assert.rejects(server.call("nope"), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() times a call out as the server does", async () => {
  const dir = await authorDir(TOOLS);
  try {
    const server = await testServer({ dir });
    const result = await server.call("stall");
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /timed out|timeout/i);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() cancels a call when its signal aborts", async () => {
  const dir = await authorDir({
    "tools/forever.ts": `export default {
  description: "Waits for cancellation",
  inputSchema: { type: "object" },
  handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
    new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
};
`,
  });
  try {
    const server = await testServer({ dir });
    const controller = new AbortController();
    const call = server.call("forever", {}, { signal: controller.signal });
    controller.abort("the test is done");
    // A client would get no answer; the helper resolves with what the handler ended with.
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /cancelled: the test is done/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() answers what a tool asks the client, and passes on its notifications", async () => {
  const dir = await authorDir(TOOLS);
  try {
    const server = await testServer({ dir });
    const notifications: JsonObject[] = [];
    const asked: string[] = [];
    const result = await server.call("greet", {}, {
      answer: (method) => {
        asked.push(method);
        return { action: "accept", content: { name: "Ada" } };
      },
      logLevel: "info",
      onNotification: (notification) => notifications.push(notification),
    });
    assert.deepEqual(result, { content: [{ type: "text", text: "Hello, Ada!" }] });
    assert.deepEqual(asked, ["elicitation/create"]);
    const methods = new Set(notifications.map((notification) => notification.method));
    assert.ok(methods.has("notifications/message"), JSON.stringify(notifications));

    // Without `answer`, the incomplete result is returned as the client would read it.
    const incomplete = await server.call("greet", {}, {
      clientCapabilities: { elicitation: {} },
    });
    assert.equal(incomplete.resultType, "input_required");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() reads resources and gets prompts", async () => {
  const dir = await authorDir(TOOLS);
  try {
    const server = await testServer({ dir });
    const read = await server.readResource("status://server");
    assert.deepEqual(read.contents, [
      { uri: "status://server", mimeType: "application/json", text: '{"ok":true}' },
    ]);
    const prompt = await server.getPrompt("explain", { code: "1 + 1" });
    assert.deepEqual(prompt.messages, [
      { role: "user", content: { type: "text", text: "Explain 1 + 1" } },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() rejects a directory with problems, naming each file", async () => {
  const dir = await authorDir({
    "tools/bad.ts":
      `export default { descripton: "typo", inputSchema: { type: "object" }, handler: () => "" };\n`,
  });
  try {
    await assert.rejects(
      testServer({ dir }),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, /^Cannot load the server directory: 1 problem\(s\)/);
        assert.match(error.message, /bad\.ts/);
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A tools/call line of 2026-07-28. */
function callLine(id: number, name: string, args: JsonObject): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
}

Deno.test("serving a directory outside the repository with its own --lock leaves toolshed's deno.lock as it was", async () => {
  // A tool with an npm dependency toolshed does not have at top level (`ms` is only a
  // dependency of a dependency in toolshed's lock, and in the npm cache), and a value
  // import of the stable specifier.
  const dir = await authorDir({
    "tools/duration.ts": `import ms from "npm:ms@2.1.3";
import type { ToolDefinition } from "@toolshed/toolshed";
export default {
  description: "Milliseconds in a duration such as 2h",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: ({ text }) => String(ms(text)),
} satisfies ToolDefinition<{ text: string }>;
`,
    "tools/refuse.ts": TOOLS["tools/refuse.ts"],
  });
  const elsewhere = await Deno.makeTempDir({ prefix: "toolshed_cwd_" });
  const before = await Deno.readFile(LOCK);
  try {
    // The documented command: `deno run -A --lock=<dir>/deno.lock <main.ts> --dir <dir>`,
    // started from another working directory.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `--lock=${dir}/deno.lock`, MAIN, "--dir", dir],
      cwd: elsewhere,
      env: { NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(
        `${callLine(1, "duration", { text: "2h" })}\n${callLine(2, "refuse", {})}\n`,
      ),
    );
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    const errors = new TextDecoder().decode(stderr);
    assert.equal(code, 0, errors);
    const answers = new TextDecoder().decode(stdout).trim().split("\n").map((line) =>
      JSON.parse(line)
    ).sort((a, b) => a.id - b.id);
    assert.deepEqual(answers[0].result.content, [{ type: "text", text: "7200000" }], errors);
    assert.deepEqual(answers[1].error, {
      code: -32603,
      message: "The ledger is unreachable",
      data: { retryAfterMs: 5000 },
    });

    assert.deepEqual(await Deno.readFile(LOCK), before, "toolshed's deno.lock changed");
    // The tool's dependency is locked beside the tools, with toolshed's own run-time ones.
    const lock = JSON.parse(await Deno.readTextFile(`${dir}/deno.lock`));
    assert.equal(lock.specifiers["npm:ms@2.1.3"], "2.1.3");
    // None of toolshed's test-only packages (the SDK clients) came with them.
    const packages = Object.keys(lock.npm ?? {});
    assert.ok(!packages.some((name) => name.startsWith("@modelcontextprotocol/")), packages.join());
    // And toolshed's own run-time packages there carry the integrity its lock holds.
    const ours = JSON.parse(new TextDecoder().decode(before)).npm;
    const shared = packages.filter((name) => name in ours);
    assert.ok(shared.length > 0, packages.join());
    for (const name of shared) assert.equal(lock.npm[name].integrity, ours[name].integrity, name);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});
