// Issue 8 through a real server process: each hostile shape (tests/_hostile_shapes.ts) is
// sent as one tools/call of about 1 MiB, beside ordinary calls; every request gets exactly
// one answer, the process stays up, and it exits 0 at the end. On the unpatched validator
// the first hostile call froze the process (the hang guard failed the test) or ended it.
import assert from "node:assert/strict";
import { SHAPES } from "./_hostile_shapes.ts";
import { spawnServer, withHangGuard } from "./_server_process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function toolModule(index: number): string {
  return `export default {
  description: "Hostile shape ${index}",
  inputSchema: ${JSON.stringify(SHAPES[index].schema)},
  handler: () => "accepted",
};\n`;
}

Deno.test("main.ts answers every hostile shape and the calls around it, then exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_hostile_" });
  try {
    for (let i = 0; i < SHAPES.length; i++) {
      await Deno.writeTextFile(`${dir}/shape${i}.ts`, toolModule(i));
    }
    await Deno.writeTextFile(
      `${dir}/ping.ts`,
      'export default { description: "Ping", inputSchema: { type: "object" }, handler: () => "pong" };\n',
    );
    const server = spawnServer(["--tools", dir]);
    const call = (id: number, name: string, args: unknown) =>
      server.send(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args, _meta: META },
      }));
    let id = 0;
    const expected = new Map<number, string>();
    for (let i = 0; i < SHAPES.length; i++) {
      expected.set(++id, `shape${i}`);
      await call(id, `shape${i}`, SHAPES[i].hostile(1024 * 1024));
      expected.set(++id, "ping");
      await call(id, "ping", {});
    }
    const answers = new Map<number, { isError?: boolean; content: { text: string }[] }>();
    while (answers.size < expected.size) {
      const line = await withHangGuard(server.nextLine(), `request ${answers.size + 1}`);
      assert.ok(line !== null, "the server ended its output early");
      const message = JSON.parse(line);
      assert.ok(expected.has(message.id), line.slice(0, 200));
      assert.ok(!answers.has(message.id), `two answers to ${message.id}`);
      answers.set(message.id, message.result);
    }
    for (const [answerId, name] of expected) {
      const result = answers.get(answerId)!;
      if (name === "ping") assert.equal(result.content[0].text, "pong");
      else if (result.isError) {
        assert.match(result.content[0].text, /^Invalid arguments for tool "shape\d"/);
      }
    }
    const { code } = await server.finish();
    assert.equal(code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
