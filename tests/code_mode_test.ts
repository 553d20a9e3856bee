// Code mode through the server (adr/0073 §1, §4, §5): the view's three tools in place of the
// catalog, search and declarations of what code may call, and runs whose calls are real calls —
// through the middleware, within the view, refused for writes that did not opt in, refused for a
// tool that asks the user. In process (createServer's `request`), and over HTTP for the paths.
import assert from "node:assert/strict";
import { createServer, type Middleware } from "../mod.ts";
import { withHangGuard } from "./_server_process.ts";
import { until } from "./_redis.ts";

/** Tools of each kind the write policy tells apart, in a folder of its own and a toolset. */
const TOOLS: Record<string, string> = {
  "add.ts": `export default {
    description: "Adds two numbers and returns their sum",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }) => ({ structuredContent: { sum: a + b }, content: [{ type: "text", text: String(a + b) }] }),
  };`,
  "greet.ts": `export default {
    description: "Greets someone by name",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    annotations: { readOnlyHint: true },
    handler: ({ name }) => ({ content: [{ type: "text", text: "Hello, " + name }] }),
  };`,
  "note.ts": `export default {
    description: "Writes a note (changes state, destroys nothing)",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: false, destructiveHint: false },
    code: true,
    handler: ({ text }) => ({ content: [{ type: "text", text: "noted: " + text }] }),
  };`,
  "erase.ts": `export default {
    description: "Erases every note",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: true },
    code: true,
    handler: () => ({ content: [{ type: "text", text: "erased" }] }),
  };`,
  "send.ts": `export default {
    description: "Sends a message (a write that did not opt in to code)",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: false },
    handler: () => ({ content: [{ type: "text", text: "sent" }] }),
  };`,
  "ask.ts": `export default {
    description: "Asks the user for a colour",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    async handler(_args, ctx) {
      const answer = await ctx.request("elicitation/create", {
        message: "Which colour?",
        requestedSchema: { type: "object", properties: { colour: { type: "string" } } },
      });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    },
  };`,
  "boom.ts": `export default {
    description: "Always fails",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    handler: () => { throw new Error("it went boom"); },
  };`,
  "weather/forecast.ts": `export default {
    description: "Tells tomorrow's weather for a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    annotations: { readOnlyHint: true },
    handler: ({ city }) => ({ content: [{ type: "text", text: "sunny in " + city }] }),
  };`,
  "mail/inbox.ts": `export default {
    description: "Lists the messages in the inbox",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    handler: () => ({ content: [{ type: "text", text: "3 messages" }] }),
  };`,
};

async function directory(): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const [name, text] of Object.entries(TOOLS)) {
    const path = `${dir}/tools/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return dir;
}

type Server = Awaited<ReturnType<typeof createServer>>;

async function withServer(
  config: Parameters<typeof createServer>[0],
  body: (server: Server) => Promise<void>,
): Promise<void> {
  const server = await createServer({ codePool: 0, ...config });
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

async function result(server: Server, method: string, params: Record<string, unknown>) {
  const answer = await withHangGuard(server.request(method, params), method, 60_000);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  return answer.result as Record<string, unknown>;
}

async function run(server: Server, code: string) {
  return await result(server, "tools/call", { name: "run_code", arguments: { code } }) as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: { value: unknown; console: string; calls: number };
  };
}

Deno.test("code mode lists its three tools instead of the catalog", async () => {
  const dir = await directory();
  await withServer({ dir, codeMode: true }, async (server) => {
    const listed = await result(server, "tools/list", {});
    // With the job tool, which follows a long run for a client without tasks (adr/0070).
    const names = (listed.tools as { name: string }[]).map((tool) => tool.name);
    assert.deepEqual(names, ["describe_tools", "run_code", "search_tools", "toolshed_job"]);
  });
  await withServer({ dir }, async (server) => {
    const listed = await result(server, "tools/list", {});
    assert.ok((listed.tools as unknown[]).length > 3, "without --code-mode, the catalog");
  });
});

Deno.test("code mode's search finds what code may call, and never a write that did not opt in", async () => {
  await withServer({ dir: await directory(), codeMode: true }, async (server) => {
    const found = await result(server, "tools/call", {
      name: "search_tools",
      arguments: { query: "weather in a city tomorrow", limit: 3 },
    });
    const hits = (found.structuredContent as { hits: { name: string }[] }).hits;
    assert.equal(hits[0]?.name, "forecast", JSON.stringify(hits));
    const sending = await result(server, "tools/call", {
      name: "search_tools",
      arguments: { query: "sends a message", limit: 50 },
    });
    const names = (sending.structuredContent as { hits: { name: string }[] }).hits.map((hit) =>
      hit.name
    );
    assert.ok(!names.includes("send"), `send did not opt in to code: ${names}`);
    assert.ok(!names.includes("erase"), `erase is destructive: ${names}`);
  });
});

Deno.test("code mode describes tools as TypeScript, and names the ones it does not have", async () => {
  await withServer({ dir: await directory(), codeMode: true }, async (server) => {
    const described = await result(server, "tools/call", {
      name: "describe_tools",
      arguments: { names: ["add"] },
    }) as { content: { text: string }[] };
    const text = described.content[0].text;
    assert.match(text, /add\(/, text);
    assert.match(text, /Adds two numbers/, text);
    assert.match(text, /sum/, text);
    const unknown = await result(server, "tools/call", {
      name: "describe_tools",
      arguments: { names: ["send", "nothing"] },
    }) as { isError?: boolean; content: { text: string }[] };
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /"send", "nothing"/);
  });
});

Deno.test("run_code calls tools as real calls: values back, errors caught, console kept", async () => {
  await withServer({ dir: await directory(), codeMode: true }, async (server) => {
    const ran = await run(
      server,
      `const { sum } = await tools.add({ a: 2, b: 3 });
       const hello = await tools.greet({ name: "Ada" });
       console.log("sum is", sum);
       let failed = "";
       try { await tools.boom({}); } catch (error) { failed = error.message; }
       return { sum, hello, failed };`,
    );
    assert.notEqual(ran.isError, true, ran.content[0].text);
    const value = ran.structuredContent?.value as { sum: number; hello: string; failed: string };
    assert.equal(value.sum, 5);
    assert.equal(value.hello, "Hello, Ada");
    assert.match(value.failed, /it went boom/);
    assert.match(ran.structuredContent!.console, /sum is 5/);
    assert.equal(ran.structuredContent!.calls, 3);
  });
});

Deno.test("run_code's calls pass through the middleware, as the outer request's", async () => {
  const seen: string[] = [];
  const recorder: Middleware = (next) => (call) => {
    if (call.method === "tools/call") seen.push(String(call.params.name));
    return next(call);
  };
  await withServer(
    { dir: await directory(), codeMode: true, middleware: [recorder] },
    async (server) => {
      const ran = await run(
        server,
        `await tools.add({ a: 1, b: 1 }); return await tools.greet({ name: "x" });`,
      );
      assert.notEqual(ran.isError, true, ran.content[0].text);
      assert.deepEqual(seen, ["run_code", "add", "greet"]);
    },
  );
});

Deno.test("run_code: a write that did not opt in, and a destructive one without the flag, are refused", async () => {
  const dir = await directory();
  const attempt = `const out = {};
    for (const name of ["note", "send", "erase"]) {
      try { out[name] = await tools[name]({ text: "hi" }); } catch (error) { out[name] = "refused: " + error.message; }
    }
    return out;`;
  await withServer({ dir, codeMode: true }, async (server) => {
    const value = (await run(server, attempt)).structuredContent!.value as Record<string, string>;
    assert.equal(value.note, "noted: hi");
    assert.match(value.send, /^refused: .*send/);
    assert.match(value.erase, /^refused: .*erase/);
  });
  await withServer({ dir, codeMode: true, codeDestructive: true }, async (server) => {
    const value = (await run(server, attempt)).structuredContent!.value as Record<string, string>;
    assert.equal(value.erase, "erased");
    assert.match(value.send, /^refused: /, "send never opted in");
  });
});

Deno.test("run_code: a tool that asks the user fails inside code, telling the model to call it directly", async () => {
  await withServer({ dir: await directory(), codeMode: true }, async (server) => {
    const ran = await run(
      server,
      `try { await tools.ask({}); return "answered"; } catch (error) { return error.message; }`,
    );
    assert.match(String(ran.structuredContent?.value), /call it directly/);
  });
});

Deno.test("code mode over HTTP: /mcp is the catalog, /mcp/code and /mcp/<set>/code the views, and a set's code reaches nothing outside it", async () => {
  await withServer({ dir: await directory(), codeMode: true, http: true }, async (server) => {
    const post = async (path: string, method: string, params: Record<string, unknown>) => {
      const response = await server.fetch(
        new Request(`http://127.0.0.1${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": method,
            ...(method === "tools/call" ? { "mcp-name": String(params.name) } : {}),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method,
            params: {
              ...params,
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
              },
            },
          }),
        }),
      );
      assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
      return (await response.json()).result;
    };
    const names = async (path: string) =>
      ((await post(path, "tools/list", {})).tools as { name: string }[]).map((tool) => tool.name);
    assert.ok((await names("/mcp")).includes("add"));
    assert.deepEqual(await names("/mcp/code"), [
      "describe_tools",
      "run_code",
      "search_tools",
      "toolshed_job",
    ]);
    assert.deepEqual(await names("/mcp/weather/code"), [
      "describe_tools",
      "run_code",
      "search_tools",
      "toolshed_job",
    ]);
    const ran = await post("/mcp/weather/code", "tools/call", {
      name: "run_code",
      arguments: {
        code: `const out = { forecast: await tools.forecast({ city: "Oslo" }) };
          try { await tools.inbox({}); out.inbox = "reached"; } catch (error) { out.inbox = "refused"; }
          return out;`,
      },
    });
    assert.deepEqual(ran.structuredContent.value, { forecast: "sunny in Oslo", inbox: "refused" });
  });
});

Deno.test("run_code calls an executable tool and an OpenAPI operation that opted in, from one script", async () => {
  const { serveEcho } = await import("./_openapi_echo.ts");
  const echo = serveEcho();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.copyFile("examples/any-language/tools/add.sh", `${dir}/tools/sum.sh`);
    await Deno.chmod(`${dir}/tools/sum.sh`, 0o755);
    await Deno.copyFile("examples/any-language/tools/add.json", `${dir}/tools/sum.json`);
    await Deno.writeTextFile(
      `${dir}/tools/pets.openapi.json`,
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "pets", version: "1" },
        paths: {
          "/pets/search": {
            post: {
              operationId: "searchPets",
              summary: "Search pets by name",
              requestBody: {
                required: true,
                content: {
                  "application/json": {
                    schema: { type: "object", properties: { name: { type: "string" } } },
                  },
                },
              },
            },
          },
        },
      }),
    );
    // A POST that only reads: the sidecar says so, and lets code call it.
    await Deno.writeTextFile(
      `${dir}/tools/pets.api.json`,
      JSON.stringify({
        baseUrl: `${echo.origin}/v1`,
        operations: ["searchPets"],
        tools: { searchPets: { code: true, annotations: { destructiveHint: false } } },
      }),
    );
    await withServer({ dir, codeMode: true }, async (server) => {
      const ran = await run(
        server,
        `const sum = await tools.sum({ a: 20, b: 22 });
         const found = await tools.searchPets({ name: "Rex" });
         return { sum, method: found.method, path: found.path };`,
      );
      assert.notEqual(ran.isError, true, ran.content[0].text);
      assert.deepEqual(ran.structuredContent?.value, {
        sum: "42",
        method: "POST",
        path: "/v1/pets/search",
      });
      assert.equal(new TextDecoder().decode(echo.arrivals.at(-1)!.body), '{"name":"Rex"}');
    });
  } finally {
    await echo.close();
  }
});

Deno.test("run_code's calls count against a tool's rate limit, as a client's would", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(
    `${dir}/tools/ping.ts`,
    `export default {
      description: "Answers pong, at most five times a minute per caller",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      rateLimit: "5/min",
      handler: () => ({ content: [{ type: "text", text: "pong" }] }),
    };`,
  );
  await withServer({ dir, codeMode: true }, async (server) => {
    const ran = await run(
      server,
      `const out = [];
       for (let i = 0; i < 10; i++) {
         try { out.push(await tools.ping({})); } catch (error) { out.push("refused: " + error.message); }
       }
       return out;`,
    );
    const value = ran.structuredContent!.value as string[];
    assert.deepEqual(value.slice(0, 5), ["pong", "pong", "pong", "pong", "pong"]);
    for (const refused of value.slice(5)) assert.match(refused, /^refused: .*rate/i, refused);
    // And the next run, as the same caller, finds the bucket still empty.
    const again = await run(
      server,
      `try { return await tools.ping({}); } catch (e) { return "refused"; }`,
    );
    assert.equal(again.structuredContent!.value, "refused");
  });
});

Deno.test("run_code's calls are the caller's: the middleware sees the subject, and a scope the token lacks is an error the code catches, named in the result", async () => {
  const { startTokenIssuer } = await import("./_token_issuer.ts");
  const issuer = await startTokenIssuer();
  const dir = await directory();
  await Deno.writeTextFile(
    `${dir}/tools/secret.ts`,
    `export default {
      description: "Reads the secret notes",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      scopes: ["notes:read"],
      handler: () => ({ content: [{ type: "text", text: "the secret" }] }),
    };`,
  );
  const seen: string[] = [];
  const audit: Middleware = (next) => (call) => {
    if (call.method === "tools/call") seen.push(`${call.params.name} by ${call.auth?.subject}`);
    return next(call);
  };
  try {
    await withServer(
      {
        dir,
        codeMode: true,
        http: true,
        oauth: { issuer: issuer.issuer, publicUrl: "http://127.0.0.1/mcp" },
        middleware: [audit],
      },
      async (server) => {
        const token = await issuer.jwt({ aud: "http://127.0.0.1/mcp", sub: "alice", scope: "mcp" });
        const response = await server.fetch(
          new Request("http://127.0.0.1/mcp/code", {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": "tools/call",
              "mcp-name": "run_code",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: {
                name: "run_code",
                arguments: {
                  code: `const out = { sum: (await tools.add({ a: 1, b: 2 })).sum };
                    try { out.secret = await tools.secret({}); } catch (error) { out.secret = error.message; }
                    return out;`,
                },
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {},
                },
              },
            }),
          }),
        );
        const body = await response.json();
        assert.equal(response.status, 200, JSON.stringify(body));
        const result = body.result;
        assert.equal(result.structuredContent.value.sum, 3);
        assert.match(result.structuredContent.value.secret, /notes:read/);
        assert.match(result.content[0].text, /scopes your token lacks: notes:read/);
        // The refused call never reaches the middleware, as a client's would not: authorize
        // runs before it.
        assert.deepEqual(seen, ["run_code by alice", "add by alice"]);
      },
    );
  } finally {
    await issuer.stop();
  }
});

Deno.test("code mode follows hot reload: a tool added is searched, described and called; a tool removed is gone from all three", async () => {
  const dir = await directory();
  await withServer({ dir, codeMode: true, watch: true }, async (server) => {
    const searched = async () => {
      const found = await result(server, "tools/call", {
        name: "search_tools",
        arguments: { query: "convert celsius fahrenheit temperature", limit: 5 },
      });
      return (found.structuredContent as { hits: { name: string }[] }).hits.map((hit) => hit.name);
    };
    assert.ok(!(await searched()).includes("convert"), "not there before it is written");
    await Deno.writeTextFile(
      `${dir}/tools/convert.ts`,
      `export default {
        description: "Converts a temperature from celsius to fahrenheit",
        inputSchema: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
        annotations: { readOnlyHint: true },
        handler: ({ celsius }) => String(celsius * 9 / 5 + 32),
      };`,
    );
    const hits = await until(searched, (names) => names.includes("convert"));
    assert.equal(hits[0], "convert", `the new tool is searched: ${JSON.stringify(hits)}`);
    const described = await result(server, "tools/call", {
      name: "describe_tools",
      arguments: { names: ["convert"] },
    }) as { content: { text: string }[] };
    assert.match(described.content[0].text, /convert\(args: \{[^}]*celsius: number/);
    const ran = await run(server, "return await tools.convert({ celsius: 100 });");
    assert.equal(ran.structuredContent?.value, "212", JSON.stringify(ran));

    await Deno.remove(`${dir}/tools/convert.ts`);
    const after = await until(searched, (names) => !names.includes("convert"));
    assert.ok(!after.includes("convert"), `the removed tool is not searched: ${after}`);
    const gone = await run(
      server,
      "try { await tools.convert({ celsius: 1 }); return 'called'; } catch (e) { return String(e); }",
    );
    assert.match(String(gone.structuredContent?.value), /convert/);
    assert.notEqual(gone.structuredContent?.value, "called");
  });
});
