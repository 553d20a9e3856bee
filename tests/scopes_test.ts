// Scopes in definitions (issue 24), in the core: what a tool, a resource or template, a prompt
// asks of the caller's token is checked before anything runs, at once (so HTTP can answer
// 403); lists show or hide what the token does not grant; a caller not known is never asked.
import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { createServer } from "../lib/server/create_server.ts";
import type { OAuthConfig } from "../lib/server/create_server.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { resourceFromModule } from "../lib/primitives/resource_modules.ts";
import { modulePrompt } from "../lib/primitives/prompt_modules.ts";
import type { Resource, ResourceTemplate } from "../lib/primitives/resources.ts";
import type { Prompt } from "../lib/primitives/prompts.ts";
import { checkScopes } from "../lib/primitives/scopes.ts";
import { NOT_READY, uriTemplatesReady } from "../lib/primitives/uri_template.ts";
import type { AuthInfo, Middleware } from "../lib/primitives/types.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { recorder } from "./_diagnostics.ts";
import { callerNamed } from "./_oauth_tools.ts";

const V = "2026-07-28";

function callerWith(...scopes: string[]): AuthInfo {
  return callerNamed("alice", scopes);
}

const ran: string[] = [];

function tool(name: string, scopes?: string[]): Tool {
  return checkDefinition(
    {
      description: name,
      inputSchema: { type: "object" },
      ...(scopes ? { scopes } : {}),
      handler: () => (ran.push(name), `${name} ran`),
    },
    name,
    `tools/${name}.ts`,
  );
}

function resource(definition: JsonObject): Resource | ResourceTemplate {
  const made = resourceFromModule(definition, String(definition.name), { maxResourceBytes: 1e6 });
  if (made.kind === "invalid") throw new Error(made.problems.join("; "));
  return made.kind === "resource" ? made.resource : made.template;
}

function prompt(name: string, scopes?: string[]): Prompt {
  return modulePrompt({
    name,
    description: name,
    arguments: [{ name: "topic" }],
    complete: { topic: ["alpha", "beta"] },
    ...(scopes ? { scopes } : {}),
    get: () => (ran.push(name), `about ${name}`),
  }, name);
}

async function fixture(
  oauth: Partial<OAuthConfig> = {},
  middleware: Middleware[] = [],
  pageSize = 100,
) {
  await uriTemplatesReady();
  const templates = [
    resource({
      name: "secret_notes",
      uriTemplate: "notes://secret/{id}",
      scopes: ["notes:secret"],
      complete: { id: ["1", "2"] },
      read: () => "classified",
    }),
    resource({ name: "notes", uriTemplate: "notes://{id}", read: () => "open note" }),
  ] as ResourceTemplate[];
  const resources = [
    resource({ name: "plan", uri: "docs://plan", scopes: ["docs:read"], read: () => "the plan" }),
    resource({ name: "readme", uri: "docs://readme", read: () => "hello" }),
  ] as Resource[];
  const server = await createServer({
    primitives: {
      tools: [
        tool("deploy", ["deploy", "repo:write"]),
        tool("echo"),
        tool("status", ["repo:read"]),
      ],
      resources,
      templates,
      prompts: [prompt("review", ["repo:read"]), prompt("greet")],
    },
    pageSize,
    diagnostics: recorder(),
    middleware,
    oauth: { issuer: "https://issuer.example", ...oauth },
  });
  let id = 0;
  /** Answers a request; `sync` says whether it came at once (a refusal must). */
  const ask = async (
    method: string,
    params: JsonObject,
    auth: AuthInfo | undefined,
    era: "stateless" | "session" = "stateless",
  ) => {
    const answer = server.core.handle({
      request: {
        kind: "request",
        id: ++id,
        method,
        params,
        envelope: era === "session" ? undefined : {
          protocolVersion: V,
          clientCapabilities: {},
          clientInfo: undefined,
          logLevel: undefined,
        },
        progressToken: undefined,
      },
      controller: new AbortController(),
      closing: undefined,
      session: undefined,
      outlet: { notify() {}, outbound: undefined },
      origin: IN_PROCESS,
      facts: auth && { caller: auth },
    });
    const sync = !(answer instanceof Promise);
    return { sync, ...await answer } as JsonObject & { sync: boolean };
  };
  return { ask };
}

const refusedCode = -32030;

Deno.test("scopes: a tool call the token does not cover is refused at once, naming every scope, before the handler", async () => {
  const { ask } = await fixture();
  ran.length = 0;
  const refused = await ask("tools/call", { name: "deploy" }, callerWith("deploy"));
  strictEqual(refused.sync, true);
  deepStrictEqual(refused.error, {
    code: refusedCode,
    message: 'Forbidden: tools/call "deploy" needs the scopes "deploy", "repo:write", which ' +
      "the access token does not grant",
    data: { requiredScopes: ["deploy", "repo:write"] },
  });
  deepStrictEqual(ran, []);
  // Every scope granted (and more): it runs.
  const granted = await ask(
    "tools/call",
    { name: "deploy" },
    callerWith("repo:write", "x", "deploy"),
  );
  strictEqual((granted.result as JsonObject).content instanceof Array, true);
  // A tool without scopes: any caller. No caller known (stdio, a shared token): never asked.
  await ask("tools/call", { name: "echo" }, callerWith());
  await ask("tools/call", { name: "deploy" }, undefined);
  deepStrictEqual(ran, ["deploy", "echo", "deploy"]);
});

Deno.test("scopes: names are compared exactly (no hierarchy, no case folding)", async () => {
  const { ask } = await fixture();
  for (const granted of [["repo"], ["REPO:READ"], ["repo:read:all"], ["repo:rea"]]) {
    const answer = await ask("tools/call", { name: "status" }, callerWith(...granted));
    strictEqual((answer.error as JsonObject)?.code, refusedCode, granted.join(" "));
  }
});

Deno.test("scopes: a request naming nothing known is left to its handler (an unknown tool is still -32602)", async () => {
  const { ask } = await fixture();
  const unknown = await ask("tools/call", { name: "nope" }, callerWith());
  strictEqual((unknown.error as JsonObject).code, -32602);
  const badName = await ask("tools/call", { name: 7 }, callerWith());
  strictEqual((badName.error as JsonObject).code, -32602);
});

Deno.test("scopes: resources, templates (matched at once), prompts and completions ask theirs", async () => {
  const { ask } = await fixture();
  const none = callerWith();
  const cases: [string, JsonObject, string[]][] = [
    ["resources/read", { uri: "docs://plan" }, ["docs:read"]],
    ["resources/read", { uri: "notes://secret/7" }, ["notes:secret"]],
    ["prompts/get", { name: "review", arguments: { topic: "x" } }, ["repo:read"]],
    [
      "completion/complete",
      { ref: { type: "ref/prompt", name: "review" }, argument: { name: "topic", value: "" } },
      ["repo:read"],
    ],
    [
      "completion/complete",
      {
        ref: { type: "ref/resource", uri: "notes://secret/{id}" },
        argument: { name: "id", value: "" },
      },
      ["notes:secret"],
    ],
  ];
  for (const [method, params, scopes] of cases) {
    const refused = await ask(method, params, none);
    strictEqual(refused.sync, true, method);
    deepStrictEqual((refused.error as JsonObject).data, { requiredScopes: scopes }, method);
    const granted = await ask(method, params, callerWith(...scopes));
    ok(granted.result !== undefined, `${method} ${JSON.stringify(granted.error)}`);
  }
  // What asks nothing: a URI the first template does not produce, a resource without scopes.
  for (const uri of ["notes://public", "docs://readme"]) {
    ok((await ask("resources/read", { uri }, none)).result !== undefined, uri);
  }
});

Deno.test("scopes: a listen subscribing to resources asks the scopes of each", async () => {
  const { ask } = await fixture();
  const refused = await ask(
    "subscriptions/listen",
    {
      notifications: {
        resourceSubscriptions: ["docs://readme", "docs://plan", "notes://secret/1"],
      },
    },
    callerWith("docs:read"),
  );
  deepStrictEqual((refused.error as JsonObject).data, {
    requiredScopes: ["docs:read", "notes:secret"],
  });
});

Deno.test("scopes: middleware never sees a refused request (the check is outermost)", async () => {
  const seen: string[] = [];
  const watcher: Middleware = (next) => (call) => {
    seen.push(call.method);
    return next(call);
  };
  const { ask } = await fixture({}, [watcher]);
  await ask("tools/call", { name: "deploy" }, callerWith());
  await ask("tools/call", { name: "echo" }, callerWith());
  deepStrictEqual(seen, ["tools/call"]);
});

Deno.test("scopes: lists show everything by default (a client must see a tool to step up for it)", async () => {
  const { ask } = await fixture();
  const listed = await ask("tools/list", {}, callerWith());
  const result = listed.result as JsonObject;
  deepStrictEqual((result.tools as JsonObject[]).map((tool) => tool.name), [
    "deploy",
    "echo",
    "status",
  ]);
  strictEqual(result.cacheScope, "public");
  // Scopes are toolshed's to enforce, not a field of the wire's Tool.
  strictEqual("scopes" in (result.tools as JsonObject[])[0], false);
});

Deno.test("scopes: --auth-lists permitted hides what the token does not grant, privately, page by page", async () => {
  const { ask } = await fixture({ lists: "permitted" }, [], 1);
  const caller = callerWith("repo:read", "docs:read");
  const names: string[] = [];
  let cursor: unknown = undefined;
  for (let pages = 0; pages < 10; pages++) {
    const answer = await ask("tools/list", cursor === undefined ? {} : { cursor }, caller);
    const result = answer.result as JsonObject;
    strictEqual(result.cacheScope, "private");
    strictEqual(typeof result.ttlMs, "number");
    names.push(...(result.tools as JsonObject[]).map((tool) => tool.name as string));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  deepStrictEqual(names, ["echo", "status"]);
  const list = async (method: string, field: string, key: string, auth = caller) => {
    const all: string[] = [];
    let next: unknown = undefined;
    for (let pages = 0; pages < 10; pages++) {
      const result = (await ask(method, next === undefined ? {} : { cursor: next }, auth))
        .result as JsonObject;
      all.push(...(result[field] as JsonObject[]).map((item) => item[key] as string));
      next = result.nextCursor;
      if (next === undefined) break;
    }
    return all;
  };
  deepStrictEqual(await list("resources/list", "resources", "uri"), [
    "docs://plan",
    "docs://readme",
  ]);
  deepStrictEqual(await list("resources/templates/list", "resourceTemplates", "name"), ["notes"]);
  deepStrictEqual(await list("prompts/list", "prompts", "name"), ["greet", "review"]);
  deepStrictEqual(await list("prompts/list", "prompts", "name", callerWith()), ["greet"]);
  // A caller not known sees everything, as a public list.
  const open = (await ask("tools/list", {}, undefined)).result as JsonObject;
  strictEqual(open.cacheScope, "public");
  strictEqual((open.tools as JsonObject[]).length, 1);
});

Deno.test("scopes: a 2025-era list hidden from a caller carries no 2026 cache fields", async () => {
  const { ask } = await fixture({ lists: "permitted" });
  const answer = await ask("tools/list", {}, callerWith(), "session");
  const result = answer.result as JsonObject;
  deepStrictEqual(Object.keys(result), ["tools"]);
  deepStrictEqual((result.tools as JsonObject[]).map((tool) => tool.name), ["echo"]);
});

Deno.test("scopes: a definition's scopes are checked at load", () => {
  deepStrictEqual(checkScopes(undefined), []);
  deepStrictEqual(checkScopes(["a:b", "a:b", "https://api.example/read"]), [
    "a:b",
    "https://api.example/read",
  ]);
  for (
    const [value, problem] of [
      ["files:read", /scopes must be a list/],
      [[""], /not an OAuth scope name/],
      [["files read"], /not an OAuth scope name/],
      [['say"hi'], /not an OAuth scope name/],
      [["é"], /not an OAuth scope name/],
      [[7], /not an OAuth scope name/],
      [["offline_access"], /asks for refresh tokens/],
    ] as const
  ) {
    throws(() => checkScopes(value), problem, JSON.stringify(value));
  }
  throws(() => tool("bad", ["two words"]), /scopes has "two words"/);
  throws(
    () => resource({ name: "r", uri: "a:b", scopes: "x", read: () => "" }),
    /scopes must be a list/,
  );
  throws(() => prompt("p", ["offline_access"]), /refresh tokens/);
});

Deno.test("scopes: before the template library loads, a read is asked every template's scopes (closed, never open)", async () => {
  const { readScopes } = await import("../lib/methods/scopes.ts");
  const template = (name: string, scopes: string[]) =>
    ({ name, scopes, matchNow: () => NOT_READY }) as unknown as ResourceTemplate;
  const snapshot = {
    resources: { byKey: new Map() },
    templates: { items: [template("a", ["x"]), template("b", ["y", "x"])] },
  };
  deepStrictEqual(
    readScopes({ params: { uri: "any://thing" }, snapshot } as never),
    ["x", "y"],
  );
});
