// The conformance fixture answers what the suite's own fixture answers (the suite checks some
// of it only loosely: any text passes tools-call-simple-text), run in process.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { loadTools } from "../../lib/discovery/tools_dir.ts";
import { loadResources } from "../../lib/discovery/resources_dir.ts";
import { loadPrompts } from "../../lib/discovery/prompts_dir.ts";
import { callTool } from "../../lib/primitives/tool_call.ts";
import type { Channels } from "../../lib/primitives/types.ts";
import { recorder } from "../_diagnostics.ts";

const FIXTURE = new URL("./fixture/tools", import.meta.url);
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const tools = await loadTools(FIXTURE, { diagnostics: recorder() });

/** Calls a fixture tool; returns its result, what it reported and what it asked the client. */
async function call(name: string, args: Record<string, unknown> = {}) {
  const tool = tools.byName.get(name);
  if (tool === undefined) throw new Error(`The fixture has no tool "${name}"`);
  const progress: unknown[][] = [];
  const logs: unknown[][] = [];
  const asked: unknown[][] = [];
  const channels: Channels = {
    progress: (...report) => void progress.push(report),
    log: (...message) => void logs.push(message),
    request: (method, params) => {
      asked.push([method, params]);
      return Promise.resolve(
        method === "sampling/createMessage"
          ? { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" }
          : { action: "accept", content: { username: "ada" } },
      );
    },
    closeStream: () => false,
  };
  const result = await callTool(tool, args, {
    controller: new AbortController(),
    defaultTimeoutMs: 10_000,
    diagnostics: recorder(),
    context: {
      requestId: 1,
      protocolVersion: "2026-07-28",
      clientInfo: undefined,
      clientCapabilities: {},
    },
    channels,
  });
  return { result, progress, logs, asked };
}

Deno.test("conformance fixture: holds exactly the tools the suite calls that toolshed can express", () => {
  deepStrictEqual(tools.tools.map((tool) => tool.name), [
    "confirm_delete",
    "failing_job",
    "greet",
    "json_schema_2020_12_tool",
    "multi_input",
    "protocol_error_job",
    "slow_compute",
    "test_audio_content",
    "test_custom_header",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_embedded_resource",
    "test_error_handling",
    "test_image_content",
    "test_input_required_result_capabilities",
    "test_input_required_result_elicitation",
    "test_input_required_result_list_roots",
    "test_input_required_result_multi_round",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_request_state",
    "test_input_required_result_sampling",
    "test_input_required_result_tampered_state",
    "test_logging_tool",
    "test_missing_capability",
    "test_multiple_content_types",
    "test_reconnection",
    "test_sampling",
    "test_simple_text",
    "test_streaming_elicitation",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_tool_with_task",
    "test_trigger_prompt_change",
    "test_trigger_tool_change",
  ]);
});

Deno.test("conformance fixture: json_schema_2020_12_tool's 2020-12 schema is applied, $ref and if/then/else included", async () => {
  const valid = await call("json_schema_2020_12_tool", {
    name: "Ada",
    address: { street: "1 Main St", city: "Paris" },
    contactMethod: "phone",
    phone: "555",
  });
  deepStrictEqual(valid.result, { content: [{ type: "text", text: "ok" }] });
  const refusals = [
    { contactMethod: "phone", email: "a@b.c" }, // if/then: a phone contact needs a phone
    { name: "Ada" }, // allOf/anyOf: a phone or an e-mail
    { phone: "555", address: { street: 7 } }, // $ref into $defs: a street is a string
    { phone: "555", nickname: "A" }, // additionalProperties: false
  ];
  // What the core checks arguments with before a call (lib/methods/tools.ts).
  const validate = tools.byName.get("json_schema_2020_12_tool")!.validateInput;
  for (const args of refusals) ok(validate(args) !== undefined, JSON.stringify(args));
  strictEqual(validate({ email: "a@b.c", contactMethod: "email" }), undefined);
});

Deno.test("conformance fixture: test_custom_header marks its region for the Mcp-Param-Region header", async () => {
  deepStrictEqual(tools.byName.get("test_custom_header")?.headerParams, [
    { path: ["region"], header: "Region" },
  ]);
  deepStrictEqual((await call("test_custom_header", { region: "eu-west-1" })).result, {
    content: [{ type: "text", text: "region: eu-west-1" }],
  });
});

Deno.test("conformance fixture: test_reconnection answers, and says so where its stream cannot be closed", async () => {
  const { result } = await call("test_reconnection");
  deepStrictEqual(result.content, [{
    type: "text",
    text: "Reconnection test completed: this stream could not be resumed, so it stayed open",
  }]);
});

const served = await loadResources(new URL("./fixture/resources", import.meta.url), {
  maxResourceBytes: 1 << 20,
  allowOutsideSymlinks: false,
  diagnostics: recorder(),
});
const prompts = await loadPrompts(new URL("./fixture/prompts", import.meta.url), {
  allowOutsideSymlinks: false,
  diagnostics: recorder(),
});

/** A handler context for reads and prompts that reach nothing. */
function quietContext(uri: string) {
  return {
    uri,
    promptName: "",
    signal: new AbortController().signal,
    requestId: 1,
    protocolVersion: "2026-07-28",
    clientInfo: undefined,
    clientCapabilities: {},
    progress() {},
    log() {},
    request: () => Promise.reject(new Error("nothing to ask")),
    closeStream: () => false,
  };
}

Deno.test("conformance fixture: serves the suite's resources, template and prompts, by their exact names", () => {
  deepStrictEqual(served.resources.map((resource) => resource.uri), [
    "test://static-binary",
    "test://static-text",
    "test://watched-resource",
  ]);
  deepStrictEqual(served.templates.map((template) => template.uriTemplate), [
    "test://template/{id}/data",
  ]);
  deepStrictEqual(prompts.map((prompt) => [prompt.name, typeof prompt.listing.description]), [
    ["test_input_required_result_prompt", "string"],
    ["test_prompt_with_arguments", "string"],
    ["test_prompt_with_embedded_resource", "string"],
    ["test_prompt_with_image", "string"],
    ["test_simple_prompt", "string"],
  ]);
});

Deno.test("conformance fixture: the resources read as the suite's fixture reads them", async () => {
  const read = async (uri: string) => {
    const resource = served.resources.find((item) => item.uri === uri);
    return await resource!.read(quietContext(uri));
  };
  deepStrictEqual(await read("test://static-text"), [{
    uri: "test://static-text",
    mimeType: "text/plain",
    text: "This is the content of the static text resource.",
  }]);
  deepStrictEqual(await read("test://static-binary"), [{
    uri: "test://static-binary",
    mimeType: "image/png",
    blob: PNG,
  }]);
  const [template] = served.templates;
  const params = (await template.match("test://template/123/data"))!;
  deepStrictEqual(params, { id: "123" });
  const [contents] = (await template.read(params, quietContext("test://template/123/data")))!;
  deepStrictEqual(JSON.parse(String(contents.text)), {
    id: "123",
    templateTest: true,
    data: "Data for ID: 123",
  });
});

Deno.test("conformance fixture: the prompts substitute their arguments and embed what the suite looks for", async () => {
  const get = (name: string, args: Record<string, string> = {}) =>
    prompts.find((prompt) => prompt.name === name)!.get(args, quietContext(""));
  const withArgs = await get("test_prompt_with_arguments", { arg1: "one", arg2: "two" });
  deepStrictEqual(withArgs.messages, [{
    role: "user",
    content: { type: "text", text: "Prompt with arguments: arg1='one', arg2='two'" },
  }]);
  const embedded = await get("test_prompt_with_embedded_resource", { resourceUri: "test://x" });
  deepStrictEqual(embedded.messages[0].content, {
    type: "resource",
    resource: {
      uri: "test://x",
      mimeType: "text/plain",
      text: "Embedded resource content for testing.",
    },
  });
  const image = await get("test_prompt_with_image");
  deepStrictEqual(image.messages[0].content, { type: "image", data: PNG, mimeType: "image/png" });
});

Deno.test("conformance fixture: the content tools return the suite fixture's blocks", async () => {
  deepStrictEqual((await call("test_simple_text")).result, {
    content: [{ type: "text", text: "This is a simple text response for testing." }],
  });
  deepStrictEqual((await call("test_image_content")).result, {
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  });
  deepStrictEqual((await call("test_audio_content")).result, {
    content: [{
      type: "audio",
      data: "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=",
      mimeType: "audio/wav",
    }],
  });
  deepStrictEqual((await call("test_embedded_resource")).result, {
    content: [{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    }],
  });
  deepStrictEqual((await call("test_multiple_content_types")).result, {
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: '{"test":"data","value":123}',
        },
      },
    ],
  });
});

Deno.test("conformance fixture: test_error_handling's thrown error is an isError result", async () => {
  deepStrictEqual((await call("test_error_handling")).result, {
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
    isError: true,
  });
});

Deno.test("conformance fixture: test_tool_with_progress reports 0, 50 and 100 of 100, then answers", async () => {
  deepStrictEqual(await call("test_tool_with_progress"), {
    logs: [],
    asked: [],
    result: { content: [{ type: "text", text: "Progress test completed" }] },
    progress: [[0, 100], [50, 100], [100, 100]],
  });
});

Deno.test("conformance fixture: test_streaming_elicitation reports progress once, then answers", async () => {
  deepStrictEqual(await call("test_streaming_elicitation"), {
    logs: [],
    asked: [],
    result: { content: [{ type: "text", text: "Streaming complete" }] },
    progress: [[50, 100, "Streaming"]],
  });
});

Deno.test("conformance fixture: test_missing_capability needs sampling and answers Success", async () => {
  deepStrictEqual(tools.byName.get("test_missing_capability")?.requiredClientCapabilities, {
    sampling: {},
  });
  deepStrictEqual((await call("test_missing_capability")).result, {
    content: [{ type: "text", text: "Success" }],
  });
});

Deno.test("conformance fixture: test_logging_tool logs once at each level through ctx.log", async () => {
  const { result, logs } = await call("test_logging_tool");
  deepStrictEqual(result, { content: [{ type: "text", text: "Logged at every level" }] });
  deepStrictEqual(
    logs.map(([level]) => level),
    ["debug", "info", "notice", "warning", "error"],
  );
  deepStrictEqual(logs[0], ["debug", "a debug message", "test_logging_tool"]);
});

Deno.test("conformance fixture: the 2025-era ask-back tools send the suite's requests and report the answers", async () => {
  const sampled = await call("test_sampling", { prompt: "Capital of France?" });
  deepStrictEqual(sampled.asked, [[
    "sampling/createMessage",
    {
      messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
      maxTokens: 100,
    },
  ]]);
  deepStrictEqual(sampled.result, { content: [{ type: "text", text: "LLM response: Paris" }] });
  const elicited = await call("test_elicitation", { message: "Who are you?" });
  deepStrictEqual(elicited.asked[0], ["elicitation/create", {
    message: "Who are you?",
    requestedSchema: {
      type: "object",
      properties: {
        username: { type: "string", description: "User's response" },
        email: { type: "string", description: "User's email address" },
      },
      required: ["username", "email"],
    },
  }]);
  deepStrictEqual(elicited.result, {
    content: [{ type: "text", text: 'User response: action=accept, content={"username":"ada"}' }],
  });
  const defaults = await call("test_elicitation_sep1034_defaults");
  const properties = (defaults.asked[0][1] as { requestedSchema: { properties: object } })
    .requestedSchema.properties;
  deepStrictEqual(Object.entries(properties).map(([key, value]) => [key, value.default]), [
    ["name", "John Doe"],
    ["age", 30],
    ["score", 95.5],
    ["status", "active"],
    ["verified", true],
  ]);
  const enums = await call("test_elicitation_sep1330_enums");
  deepStrictEqual(
    Object.keys(
      (enums.asked[0][1] as { requestedSchema: { properties: object } })
        .requestedSchema.properties,
    ),
    ["untitledSingle", "titledSingle", "legacyEnum", "untitledMulti", "titledMulti"],
  );
  deepStrictEqual(enums.result, {
    content: [{
      type: "text",
      text: 'Elicitation completed: action=accept, content={"username":"ada"}',
    }],
  });
});
