// A real host follows a job (issue 38, adr/0070): Claude Code, pinned and installed by
// tests/hosts/install.ts into .cache/hosts/, run headless (`claude -p`) as a user configures
// it — `toolshed config claude-code --write` writes the project's .mcp.json, the user adds the
// server's flags to its arguments, approves that server and allows its tools in their
// settings — with its model API pointed at a stub model on loopback (ANTHROPIC_BASE_URL,
// tests/_anthropic_stub.ts) and no other traffic. The stub's script is the model: it calls the
// slow tool of tests/fixtures/jobs_host (served with a job bound of 500 ms and a wait of 1 s,
// so the call becomes a job and the job tool answers "still running" at least once), then
// reads each tool result the host sends back: a result naming the next call (in toolshed's
// sentence, or in the structured content, which is all Claude Code shows its model) is
// followed with exactly that call, the id parsed from what the host sent, the tool found by
// its host's name; the tool's own result is answered with a final text quoting it. Twice:
// with every tool in the request, and as installed, where the host's tool search holds MCP
// tools back until the model loads them by name. And Gemini CLI, configured by `toolshed
// config gemini --write` and pointed at a Gemini API stub (GOOGLE_GEMINI_BASE_URL,
// tests/_gemini_stub.ts), which gives its model the results' text: the handle's sentence.
// Where the hosts are not installed the test says it did not run; under CI=true (.ci/run
// installs them) it runs or fails.
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { configure } from "../lib/commands/config.ts";
import { currentSelf } from "../lib/commands/client_launch.ts";
import { memoryIo } from "./_memory_io.ts";
import { hostsProblem, runHost } from "./_mcp_hosts.ts";
import {
  type AnswerBlock,
  type MessagesRequest,
  type SentBlock,
  serveAnthropicStub,
} from "./_anthropic_stub.ts";
import { type AnswerPart, type GenerateRequest, serveGeminiStub } from "./_gemini_stub.ts";

const MISSING = await hostsProblem();
const IN_CI = Deno.env.get("CI") === "true";
const NOTE = MISSING === undefined || IN_CI ? "" : ` (NOT RUN HERE: ${MISSING})`;
const FIXTURE = decodeURIComponent(new URL("./fixtures/jobs_host/", import.meta.url).pathname);
const TOOL = "tally_words";
const JOB_TOOL = "toolshed_job";
// 20 words at 150 ms each: about 3 s, past the 500 ms bound and the 1 s wait.
const WORDS = "the quick brown fox jumps over the lazy dog while seven wise owls count " +
  "every leaf on the old oak";
const SERVED_WITH = ["--job-after", "500", "--job-wait", "1000"];
const HOST_LIMIT_MS = 180_000;

/** What the fixture's tool answers for `text`, worked out here on its own. */
function tallyOf(text: string): string {
  const words = text.split(/\s+/).filter((word) => word !== "");
  let sum = 0;
  for (const char of words.join("")) sum = (sum * 31 + char.codePointAt(0)!) % 1_000_003;
  return `tally: ${words.length} words, checksum ${sum}`;
}

/** One turn of the main conversation as the stub saw it and answered it. */
interface Turn {
  /** The text of the tool result the host sent back in this turn, if any, and whose it is. */
  readonly result?: string;
  readonly resultOf?: string;
  /** The call the stub answered with (the host's name of the tool, its input), or its text. */
  readonly called?: { name: string; input: Record<string, unknown> };
  readonly said?: string;
}

/**
 * The tool result the request answers the model's last call with, if any: its id and text.
 * Messages of the host's own after it (Claude Code adds a "system" one, "The user hasn't
 * heard from you in a while", after a few silent calls) are passed over.
 */
function lastToolResult(request: MessagesRequest): { of: string; text: string } | undefined {
  const last = request.messages.findLast((message) => message.role !== "system");
  if (last === undefined || last.role !== "user" || typeof last.content === "string") {
    return undefined;
  }
  const block = last.content.filter((block) => block.type === "tool_result").at(-1);
  if (block === undefined) return undefined;
  const content = block.content as string | SentBlock[];
  const text = typeof content === "string"
    ? content
    : content.filter((part) => part.type === "text").map((part) => part.text).join("\n");
  return { of: String(block.tool_use_id), text };
}

/**
 * The host's name for the tool `name` among the request's tools, the server's tools prefixed
 * with its name as hosts do: a tool the host holds back for its tool search (`defer_loading`)
 * only once a tool result has referenced it (the search's answer, a `tool_reference`).
 */
function loadedName(request: MessagesRequest, name: string): string | undefined {
  const referenced = new Set(
    request.messages.flatMap((message) =>
      typeof message.content === "string" ? [] : message.content
    )
      .filter((block) => block.type === "tool_result" && Array.isArray(block.content))
      .flatMap((block) => block.content as SentBlock[])
      .filter((part) => part.type === "tool_reference").map((part) => part.tool_name),
  );
  return request.tools?.find((tool) =>
    (tool.name === name || tool.name.endsWith(`__${name}`)) &&
    (tool.defer_loading !== true || referenced.has(tool.name))
  )?.name;
}

/**
 * The host's name for the server's tool `name` where the prompt names it as one to load
 * first (Claude Code's tool search lists such tools by name in a system message).
 */
function deferredName(request: MessagesRequest, name: string): string | undefined {
  const prompt = JSON.stringify([request.system, request.messages]);
  return prompt.match(new RegExp(`mcp__[A-Za-z0-9_-]+?__${name}(?![A-Za-z0-9_-])`))?.[0];
}

/** A next call as a tool result names it: the tool and its arguments. */
interface NextCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * The next call a tool result names, read as a model reads it: from toolshed's sentence
 * ('Call the tool "…" with {…}'), or, where the host gave the model the result's structured
 * content as JSON instead of its text (as Claude Code does), from its `job.next`.
 */
function nextCallIn(text: string): NextCall | null {
  const named = text.match(/Call the tool "([^"]+)" with (\{[^}]*\})/);
  if (named !== null) return { tool: named[1], arguments: JSON.parse(named[2]) };
  const next = structuredOf(text)?.job?.next;
  return typeof next?.tool === "string" && typeof next.arguments === "object" ? next : null;
}

/** A tool result's text as a job's structured content, when it is one. */
function structuredOf(
  text: string,
): { job?: Record<string, unknown> & { id?: unknown; next?: NextCall } } | undefined {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The model: the main conversation (the one whose tools or prompt hold the fixture's tool) is
 * scripted as the file's head says, each turn recorded in `turns`; a tool held back by the
 * host's tool search is loaded first, as its prompt says (ToolSearch "select:NAME"), then
 * called. Any other request the host makes of its model (a title, a summary) gets a short
 * text, counted in `side`.
 */
function scriptedModel(turns: Turn[], side: { requests: number }) {
  const called = new Map<string, string>(); // a tool_use id: the tool it called
  let loading: NextCall | undefined; // the call a tool search was made for
  return (request: MessagesRequest): AnswerBlock[] => {
    if (loadedName(request, TOOL) === undefined && deferredName(request, TOOL) === undefined) {
      side.requests++;
      return [{ type: "text", text: "ok" }];
    }
    const last = lastToolResult(request);
    const result = last?.text;
    const resultOf = last === undefined ? undefined : called.get(last.of);
    const call = (name: string, input: Record<string, unknown>): AnswerBlock[] => {
      const id = `toolu_stub_${called.size + 1}`;
      called.set(id, name);
      turns.push({ result, resultOf, called: { name, input } });
      return [{ type: "tool_use", id, name, input }];
    };
    const say = (text: string): AnswerBlock[] => {
      turns.push({ result, resultOf, said: text });
      return [{ type: "text", text }];
    };
    const callOrLoad = (next: NextCall): AnswerBlock[] => {
      const name = loadedName(request, next.tool);
      if (name !== undefined) return call(name, next.arguments);
      const held = deferredName(request, next.tool);
      const search = request.tools?.find((tool) => tool.name === "ToolSearch")?.name;
      if (held === undefined || search === undefined) return say(`No tool "${next.tool}" here`);
      loading = next;
      return call(search, { query: `select:${held}` });
    };
    if (last === undefined) return callOrLoad({ tool: TOOL, arguments: { text: WORDS } });
    if (loading !== undefined && resultOf === "ToolSearch") {
      const { tool, arguments: input } = loading;
      loading = undefined;
      const name = loadedName(request, tool);
      return name === undefined ? say(`"${tool}" did not load`) : call(name, input);
    }
    const next = nextCallIn(result!);
    return next === null ? say(`The tally is done. ${result}`) : callOrLoad(next);
  };
}

/**
 * Runs Claude Code headless in a project configured as the file's head says, against the
 * scripted model, with `hostEnv` besides: the turns of the model, what the host printed, and
 * all of it in one text for failures.
 */
async function followJob(hostEnv: Record<string, string>) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolshed_jobs_host_" }));
  const turns: Turn[] = [];
  const side = { requests: 0 };
  const model = serveAnthropicStub(scriptedModel(turns, side));
  try {
    const home = `${root}/home`;
    const project = `${root}/project`;
    await Deno.mkdir(`${home}/.claude`, { recursive: true });
    await Deno.mkdir(`${project}/tools`, { recursive: true });
    await Deno.copyFile(`${FIXTURE}tools/${TOOL}.ts`, `${project}/tools/${TOOL}.ts`);
    const env = { HOME: home, DENO_DIR: await denoDir() };

    // As a user configures it: config writes .mcp.json, the user adds the server's flags to
    // the entry's arguments, approves the project's server and allows its tools.
    const memory = memoryIo(project, env);
    equal(
      await configure(["claude-code", "--dir", project, "--write"], memory.io, currentSelf()),
      0,
      memory.err(),
    );
    const file = JSON.parse(await Deno.readTextFile(`${project}/.mcp.json`));
    file.mcpServers.toolshed.args.push(...SERVED_WITH);
    await Deno.writeTextFile(`${project}/.mcp.json`, JSON.stringify(file, null, 2));
    await Deno.writeTextFile(
      `${home}/.claude/settings.json`,
      JSON.stringify({
        enabledMcpjsonServers: ["toolshed"],
        permissions: { allow: ["mcp__toolshed"] },
      }),
    );

    const run = await runHost("claude", ["-p", `Tally the words of: ${WORDS}`], {
      home,
      cwd: project,
      env: {
        ...env,
        ANTHROPIC_BASE_URL: model.baseUrl,
        ANTHROPIC_API_KEY: "sk-ant-stub-on-loopback",
        // Only the model's API, which is the stub: no telemetry, updates or reports.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Nor the server's: deno run asks dl.deno.land for a newer deno unless told not to.
        DENO_NO_UPDATE_CHECK: "1",
        ...hostEnv,
      },
      signal: AbortSignal.timeout(HOST_LIMIT_MS),
    });
    const seen = [
      run.output,
      `turns: ${JSON.stringify(turns, null, 1)}`,
      `paths: ${JSON.stringify(model.paths)}; other requests of the model: ${side.requests}`,
    ].join("\n");
    equal(run.code, 0, seen);
    ok(model.paths.every((path) => path.startsWith("POST /v1/messages")), seen);
    return { turns, stdout: run.stdout, seen };
  } finally {
    await model.close();
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * The job followed in `turns`: the tool called once, then the job tool with the handle's id
 * until the tool's own result, which the last turn quotes; at least one answer of the job
 * tool said the job was still running (the tool runs 3 s, a wait is 1 s).
 */
function assertFollowed(turns: Turn[], stdout: string, seen: string) {
  const ours = (name: string | undefined) => name?.startsWith("mcp__toolshed__") === true;
  const calls = turns.flatMap((turn) => ours(turn.called?.name) ? [turn.called] : []);
  const answers = turns.flatMap((turn) => ours(turn.resultOf) ? [turn.result ?? ""] : []);
  deepStrictEqual(calls[0], { name: "mcp__toolshed__tally_words", input: { text: WORDS } }, seen);
  const id = structuredOf(answers[0] ?? "")?.job?.id;
  ok(typeof id === "string", seen);
  ok(calls.length >= 3, `a "still running" answer before the result: ${seen}`);
  // The handle names {id}; each "still running" the next wait, counted (adr/0070).
  const nextOf = (index: number) => index === 0 ? { id } : { id, attempt: index + 1 };
  for (const [index, each] of calls.slice(1).entries()) {
    deepStrictEqual(each, { name: "mcp__toolshed__toolshed_job", input: nextOf(index) }, seen);
  }
  equal(answers.length, calls.length, seen);
  // What the model got for the handle and for each "still running": the structured content
  // alone, as JSON (Claude Code gives a result's structuredContent to the model in place of
  // its text, anthropics/claude-code#79944), naming the next call.
  for (const [index, answer] of answers.slice(0, -1).entries()) {
    const { job, ...rest } = structuredOf(answer) ?? {};
    deepStrictEqual(rest, {}, seen);
    const { statusMessage, ...state } = job ?? {};
    deepStrictEqual(state, {
      id,
      status: "working",
      pollAfterMs: 0,
      next: { tool: JOB_TOOL, arguments: nextOf(index) },
    }, seen);
    if (statusMessage !== undefined) match(String(statusMessage), /^word \d+ of 20$/, seen);
  }
  equal(answers.at(-1), tallyOf(WORDS), seen);
  deepStrictEqual(turns.at(-1), {
    result: tallyOf(WORDS),
    resultOf: "mcp__toolshed__toolshed_job",
    said: `The tally is done. ${tallyOf(WORDS)}`,
  }, seen);
  ok(stdout.includes(tallyOf(WORDS)), seen);
}

/** The tool searches in `turns`: the result each was made after, and its query. */
const searchesIn = (turns: Turn[]) =>
  turns.flatMap((turn) =>
    turn.called?.name === "ToolSearch" ? [[turn.resultOf, turn.called.input.query]] : []
  );

const live = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name: `${name}${NOTE}`, ignore: MISSING !== undefined && !IN_CI, fn });

live("jobs: Claude Code run headless follows a job to the tool's own result", async () => {
  // Every MCP tool in the request's tools, not behind the host's tool search.
  const { turns, stdout, seen } = await followJob({ ENABLE_TOOL_SEARCH: "false" });
  assertFollowed(turns, stdout, seen);
  deepStrictEqual(searchesIn(turns), [], seen);
});

live(
  "jobs: Claude Code with its tool search, as installed, loads toolshed_job when the handle names it and follows the job",
  async () => {
    const { turns, stdout, seen } = await followJob({});
    assertFollowed(turns, stdout, seen);
    deepStrictEqual(searchesIn(turns), [
      [undefined, "select:mcp__toolshed__tally_words"],
      ["mcp__toolshed__tally_words", "select:mcp__toolshed__toolshed_job"],
    ], seen);
  },
);

/**
 * The model for Gemini CLI, scripted as for Claude Code: the main conversation (the one whose
 * functions hold the fixture's tool) calls the tool, then follows each result that names a
 * next call, then quotes the tool's own result. Gemini CLI gives the model a result's text,
 * as `functionResponse.response.output`.
 */
function scriptedGemini(turns: Turn[], side: { requests: number }) {
  return (request: GenerateRequest): AnswerPart[] => {
    const declared = (request.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
    const names = declared.map((declaration) => declaration.name);
    const nameOf = (name: string) =>
      names.find((each) => each === name || each.endsWith(`_${name}`));
    const tool = nameOf(TOOL);
    if (tool === undefined) {
      side.requests++;
      return [{ text: "ok" }];
    }
    const answered = request.contents.at(-1)?.parts.findLast((part) =>
      part.functionResponse !== undefined
    )?.functionResponse;
    const output = answered?.response?.output;
    const result = answered === undefined
      ? undefined
      : typeof output === "string"
      ? output
      : JSON.stringify(answered.response);
    const resultOf = answered?.name;
    const call = (name: string, input: Record<string, unknown>): AnswerPart[] => {
      turns.push({ result, resultOf, called: { name, input } });
      return [{ functionCall: { name, args: input } }];
    };
    const say = (text: string): AnswerPart[] => {
      turns.push({ result, resultOf, said: text });
      return [{ text }];
    };
    if (result === undefined) return call(tool, { text: WORDS });
    const next = nextCallIn(result);
    const follower = next === null ? undefined : nameOf(next.tool);
    if (next === null) return say(`The tally is done. ${result}`);
    if (follower === undefined) return say(`No tool "${next.tool}" here`);
    // Gemini CLI adds `wait_for_previous` to every function it declares ("Use true when this
    // tool depends on the output of previous tools"), and passes it on to the server: a model
    // that fills it in, as a call that follows a job does depend on the one before, sends it.
    const own = declared.find((declaration) => declaration.name === follower)
      ?.parametersJsonSchema?.properties?.wait_for_previous;
    return call(follower, {
      ...next.arguments,
      ...own === undefined ? {} : { wait_for_previous: true },
    });
  };
}

live("jobs: Gemini CLI run headless follows a job, reading the handle's text", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolshed_jobs_host_" }));
  const turns: Turn[] = [];
  const side = { requests: 0 };
  const model = serveGeminiStub(scriptedGemini(turns, side));
  try {
    const home = `${root}/home`;
    const project = `${root}/project`;
    await Deno.mkdir(`${home}/.gemini`, { recursive: true });
    await Deno.mkdir(`${project}/tools`, { recursive: true });
    await Deno.copyFile(`${FIXTURE}tools/${TOOL}.ts`, `${project}/tools/${TOOL}.ts`);
    const env = { HOME: home, DENO_DIR: await denoDir() };

    // As a user configures it: config writes .gemini/settings.json in the project; the user
    // adds the server's flags, trusts the server (so a headless run may call its tools) and
    // the folder, and chooses a Gemini API key as their sign-in, without usage statistics.
    const memory = memoryIo(project, env);
    equal(
      await configure(["gemini", "--dir", project, "--write"], memory.io, currentSelf()),
      0,
      memory.err(),
    );
    const settings = `${project}/.gemini/settings.json`;
    const file = JSON.parse(await Deno.readTextFile(settings));
    file.mcpServers.toolshed.args.push(...SERVED_WITH);
    file.mcpServers.toolshed.trust = true;
    await Deno.writeTextFile(settings, JSON.stringify(file, null, 2));
    await Deno.writeTextFile(
      `${home}/.gemini/trustedFolders.json`,
      JSON.stringify({ [project]: "TRUST_FOLDER" }),
    );
    await Deno.writeTextFile(
      `${home}/.gemini/settings.json`,
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
      }),
    );

    const run = await runHost("gemini", ["-p", `Tally the words of: ${WORDS}`], {
      home,
      cwd: project,
      env: {
        ...env,
        GEMINI_API_KEY: "stub-on-loopback",
        GOOGLE_GEMINI_BASE_URL: model.baseUrl,
        DENO_NO_UPDATE_CHECK: "1",
      },
      signal: AbortSignal.timeout(HOST_LIMIT_MS),
    });
    const seen = [
      run.output,
      `turns: ${JSON.stringify(turns, null, 1)}`,
      `paths: ${JSON.stringify(model.paths)}; other requests of the model: ${side.requests}`,
    ].join("\n");
    equal(run.code, 0, seen);

    // The host's own requests for JSON (its model router) aside, the model's turns: the tool,
    // then the job tool with the id the handle's text named, then the tool's own result.
    const calls = turns.flatMap((turn) => turn.called === undefined ? [] : [turn.called]);
    const answers = turns.map((turn) => turn.result);
    deepStrictEqual(calls[0], { name: "mcp_toolshed_tally_words", input: { text: WORDS } }, seen);
    const id = nextCallIn(answers[1] ?? "")?.arguments.id;
    ok(typeof id === "string", seen);
    ok(calls.length >= 3, `a "still running" answer before the result: ${seen}`);
    // No two calls of the follow alike: Gemini CLI stops the fifth of five (adr/0070).
    for (const [index, each] of calls.slice(1).entries()) {
      deepStrictEqual(each, {
        name: "mcp_toolshed_toolshed_job",
        input: index === 0
          ? { id, wait_for_previous: true }
          : { id, attempt: index + 1, wait_for_previous: true },
      }, seen);
    }
    // What the model got: each result's text, inside Gemini CLI's <untrusted_context>.
    const wrapped = (text: string) => `<untrusted_context>\n${text}\n</untrusted_context>`;
    equal(
      answers[1],
      wrapped(
        `The tool "tally_words" is still running, as job "${id}". Call the tool ` +
          `"toolshed_job" with {"id":"${id}"} to wait for its result: each call returns as ` +
          "soon as the job ends, or after 1 s with its status.",
      ),
      seen,
    );
    for (const [index, answer] of answers.slice(2, -1).entries()) {
      match(
        answer ?? "",
        new RegExp(
          `^<untrusted_context>\\nThe job "${id}" is still running\\.( Its last status: ` +
            `"word \\d+ of 20"\\.)? Call the tool "toolshed_job" with ` +
            `\\{"id":"${id}","attempt":${index + 2}\\} ` +
            `to go on waiting \\(each call waits up to 1 s\\)\\.\\n</untrusted_context>$`,
        ),
        seen,
      );
    }
    deepStrictEqual(turns.at(-1), {
      result: wrapped(tallyOf(WORDS)),
      resultOf: "mcp_toolshed_toolshed_job",
      said: `The tally is done. ${wrapped(tallyOf(WORDS))}`,
    }, seen);
    ok(run.stdout.includes(tallyOf(WORDS)), seen);
    ok(model.paths.every((path) => path.startsWith("POST /v1beta/models/")), seen);
  } finally {
    await model.close();
    await Deno.remove(root, { recursive: true });
  }
});

/** This machine's Deno cache, which the server the host starts must find (its HOME is new). */
async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}
