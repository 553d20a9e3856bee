// A real host follows a job (issue 38, adr/0070): Claude Code, pinned and installed by
// tests/hosts/install.ts into .cache/hosts/, run headless (`claude -p`) as a user configures
// it — `toolshed config claude-code --write` writes the project's .mcp.json, the user approves
// that server and allows its tools in their settings — with its model API pointed at a stub
// model on loopback (ANTHROPIC_BASE_URL, tests/_anthropic_stub.ts). The stub's script is the
// model: it calls the slow tool of tests/fixtures/jobs_host (served with a job bound of
// 500 ms and a wait of 1 s, so the call becomes a job and the job tool answers "still
// running" at least once), then reads each tool result the host sends back: a result naming
// the job tool and its arguments is followed with exactly that call (the id parsed from the
// text, the tool found in the host's own listing); the tool's own result is answered with a
// final text quoting it. Where the hosts are not installed the test says it did not run; under
// CI=true (.ci/run installs them) it runs or fails.
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
  /** The text of the tool result the host sent back in this turn, if any. */
  readonly result?: string;
  /** The call the stub answered with (the host's name of the tool, its input), or its text. */
  readonly called?: { name: string; input: Record<string, unknown> };
  readonly said?: string;
}

/** The text of the last tool result in the request's last message, if it carries one. */
function lastToolResult(request: MessagesRequest): string | undefined {
  const last = request.messages.at(-1);
  if (last === undefined || last.role !== "user" || typeof last.content === "string") {
    return undefined;
  }
  const results = last.content.filter((block) => block.type === "tool_result");
  const content = results.at(-1)?.content as string | SentBlock[] | undefined;
  if (content === undefined) return undefined;
  if (typeof content === "string") return content;
  return content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
}

/** The host's name for the server's tool `name` (hosts prefix the server's name). */
function hostNameOf(request: MessagesRequest, name: string): string | undefined {
  return request.tools?.find((tool) => tool.name === name || tool.name.endsWith(`__${name}`))
    ?.name;
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
 * The model: the main conversation (the one whose tools hold the fixture's) is scripted as
 * the file's head says, each turn recorded in `turns`; any other request the host makes of its
 * model (a title, a summary) gets a short text, counted in `side`.
 */
function scriptedModel(turns: Turn[], side: { requests: number }) {
  let calls = 0;
  return (request: MessagesRequest): AnswerBlock[] => {
    const tool = hostNameOf(request, TOOL);
    if (tool === undefined) {
      side.requests++;
      return [{ type: "text", text: "ok" }];
    }
    const result = lastToolResult(request);
    const call = (name: string, input: Record<string, unknown>): AnswerBlock[] => {
      turns.push({ result, called: { name, input } });
      return [{ type: "tool_use", id: `toolu_stub_${++calls}`, name, input }];
    };
    if (result === undefined) return call(tool, { text: WORDS });
    const next = nextCallIn(result);
    const follower = next === null ? undefined : hostNameOf(request, next.tool);
    if (next !== null && follower !== undefined) return call(follower, next.arguments);
    const said = `The tally is done. ${result}`;
    turns.push({ result, said });
    return [{ type: "text", text: said }];
  };
}

Deno.test({
  name: `jobs: Claude Code run headless follows a job to the tool's own result${NOTE}`,
  ignore: MISSING !== undefined && !IN_CI,
  fn: async () => {
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
          // Every MCP tool in the request's tools, not behind the host's tool search.
          ENABLE_TOOL_SEARCH: "false",
        },
        signal: AbortSignal.timeout(HOST_LIMIT_MS),
      });
      const seen = [
        run.output,
        `turns: ${JSON.stringify(turns, null, 1)}`,
        `paths: ${JSON.stringify(model.paths)}; other requests of the model: ${side.requests}`,
      ].join("\n");
      equal(run.code, 0, seen);

      // Turn 1 calls the tool. Then each call is the job tool with the handle's id, the host's
      // name for it found in its listing, until the tool's own result: at least one answer
      // of the job tool said the job was still running (the tool runs 3 s, a wait is 1 s).
      const [first, ...following] = turns;
      deepStrictEqual(first, {
        result: undefined,
        called: { name: "mcp__toolshed__tally_words", input: { text: WORDS } },
      }, seen);
      const id = structuredOf(following[0]?.result ?? "")?.job?.id;
      ok(typeof id === "string", seen);
      const calls = following.filter((turn) => turn.called !== undefined);
      ok(calls.length >= 2, `a "still running" answer before the result: ${seen}`);
      for (const turn of calls) {
        deepStrictEqual(turn.called, { name: "mcp__toolshed__toolshed_job", input: { id } }, seen);
        // What the model got for the handle and for each "still running": the structured
        // content alone, as JSON (Claude Code gives a result's structuredContent to the model
        // in place of its text, anthropics/claude-code#79944), naming the next call.
        const { job, ...rest } = structuredOf(turn.result ?? "") ?? {};
        deepStrictEqual(rest, {}, seen);
        const { statusMessage, ...state } = job ?? {};
        deepStrictEqual(state, {
          id,
          status: "working",
          pollAfterMs: 0,
          next: { tool: JOB_TOOL, arguments: { id } },
        }, seen);
        if (statusMessage !== undefined) match(String(statusMessage), /^word \d+ of 20$/, seen);
      }
      const last = following.at(-1)!;
      equal(last.result, tallyOf(WORDS), seen);
      equal(last.said, `The tally is done. ${tallyOf(WORDS)}`, seen);
      ok(run.stdout.includes(tallyOf(WORDS)), seen);
      ok(model.paths.every((path) => path.startsWith("POST /v1/messages")), seen);
    } finally {
      await model.close();
      await Deno.remove(root, { recursive: true });
    }
  },
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
