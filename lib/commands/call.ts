// toolshed call: calls one tool as a 2026-07-28 client would, through the real request core
// (the extractor, validation, timeouts, result checks), and prints the result for a person
// or, with --json, the CallToolResult itself. Arguments come as one JSON object or as
// key=value pairs typed by the tool's input schema.
import { isObject, type JsonObject, MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { EXIT, type Io } from "./command.ts";
import {
  ask,
  codeModeOf,
  DIR_FLAGS,
  DIR_FLAGS_HELP,
  ioDiagnostics,
  openServer,
  parseCommandArgs,
} from "./open_server.ts";
import { declaredTypes, errorText, questionText, resolved, resultText, shown } from "./render.ts";
import { TABLE } from "../settings/table.ts";
import type { Server } from "../server/create_server.ts";
import { type Diagnostics, diagnosticText } from "../util/diagnostics.ts";
import { TASKS_EXTENSION } from "../tasks/tasks.ts";

const FLAGS = {
  ...DIR_FLAGS,
  "code-mode": { type: "boolean" },
  "code-destructive": { type: "boolean" },
  json: { type: "boolean" },
  "tool-timeout": { type: "string" },
  answer: { type: "string", multiple: true },
  verbose: { type: "boolean", short: "v" },
} as const;

/**
 * Questions call may be asked: it answers the user's (elicitation) from --answer. It declares
 * the tasks extension, so that a tool that runs as a task can be called: it polls the task.
 */
const CAPABILITIES = {
  elicitation: {},
  sampling: {},
  roots: {},
  extensions: { [TASKS_EXTENSION]: {} },
};

/** Bounds on the wait between two polls of a task, whatever interval the task asks for. */
const MIN_POLL_MS = 20;
const MAX_POLL_MS = 1_000;

const ARGUMENTS_HINT = "(toolshed call --help shows how to give arguments)";

export const command = {
  usage: `Usage: toolshed call NAME [ARGUMENTS…] [options]

Calls the tool NAME of a server directory as an MCP client would, and prints its result:
text as it is, structured content as JSON, other content described in a line.

Arguments are one JSON object, or key=value pairs. A value is read as the tool's input
schema declares the key: integer, number and boolean strictly, object and array as JSON,
string as it is; a key of no declared type takes JSON when the value parses, else the text.

Options:
${DIR_FLAGS_HELP}
  --json                     Print the CallToolResult as JSON
  --tool-timeout MS          Time the call may run unless the tool sets timeoutMs
                             (default: ${TABLE.toolTimeoutMs.default})
  --answer ANSWER            Answers a question the tool asks the user (elicitation), in
                             the order asked: a JSON object of the fields asked for, or
                             decline, or cancel (repeatable)
  -v, --verbose              Show the stack of an error the tool throws
  --code-mode                Code mode's tools (search_tools, describe_tools, run_code)
                             instead of the catalog, as serve --code-mode
  --code-destructive         With --code-mode: code may call destructive tools that opt in

A tool that runs as a task is followed to its end, its status on stderr.

Exits 0 on success, 1 when the tool fails (its error on stderr) or asks what call cannot
answer, 2 when the command line is wrong.

Examples:
  toolshed call echo text="hello there"
  toolshed call divide '{"dividend": 1, "divisor": 4}'
  toolshed call word_stats text="one two two" --json
  toolshed call greet --answer '{"name": "Ada"}'`,

  async run(args: string[], io: Io): Promise<number> {
    const parsed = parseCommandArgs(args, FLAGS, io, "call", command.usage);
    if (typeof parsed === "number") return parsed;
    const { values, positionals } = parsed;
    const [name, ...words] = positionals;
    if (name === undefined || name === "") {
      io.err(
        `toolshed: Missing the tool name: toolshed call NAME [ARGUMENTS…]\n${ARGUMENTS_HINT}\n`,
      );
      return EXIT.usage;
    }
    let timeoutMs: number | undefined;
    const rawTimeout = values["tool-timeout"];
    if (rawTimeout !== undefined) {
      timeoutMs = Number(rawTimeout);
      if (!/^\d+$/.test(rawTimeout) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
        io.err(
          `toolshed: Invalid value for --tool-timeout: "${rawTimeout}" is not an integer ` +
            `from 1 to ${MAX_TIMER_MS}\n`,
        );
        return EXIT.usage;
      }
    }
    const answers: JsonObject[] = [];
    for (const raw of values.answer ?? []) {
      const answer = answerOf(raw);
      if (answer === undefined) {
        io.err(
          `toolshed: Invalid value for --answer: "${raw}" is not a JSON object, decline or cancel\n`,
        );
        return EXIT.usage;
      }
      answers.push(answer);
    }
    const given = readWords(words);
    if (typeof given === "string") {
      io.err(`toolshed: ${given}\n${ARGUMENTS_HINT}\n`);
      return EXIT.usage;
    }

    const opened = await openServer(values, io, {
      toolTimeoutMs: timeoutMs,
      diagnostics: quieter(ioDiagnostics(io), name, values.verbose === true),
      codeMode: codeModeOf(values),
    });
    if (typeof opened === "number") return opened;
    // Whichever way the command ends, the server's mounted upstreams are stopped.
    await using _closing = { [Symbol.asyncDispose]: () => opened.server.close() };
    const { server } = opened;
    const snapshot = server.registry.current();
    let toolArgs: JsonObject;
    if ("json" in given) toolArgs = given.json;
    else {
      // An unknown tool has no schema: its arguments are read untyped, and the core's
      // answer names the tools there are.
      const schema = snapshot.tools.byKey.get(name)?.definition.inputSchema;
      const typed = typedArguments(given.pairs, schema);
      if (typeof typed === "string") {
        io.err(`toolshed: ${typed}\n${ARGUMENTS_HINT}\n`);
        return EXIT.usage;
      }
      toolArgs = typed;
    }

    let params: JsonObject = { name, arguments: toolArgs };
    let used = 0;
    /** The --answer values for `questions`, in order, or undefined when call cannot answer. */
    const answersFor = (questions: JsonObject): JsonObject | undefined => {
      const inputResponses: JsonObject = {};
      for (const [key, question] of Object.entries(questions)) {
        if (!isObject(question) || question.method !== "elicitation/create") return undefined;
        if (used >= answers.length) return undefined;
        inputResponses[key] = answers[used++];
      }
      return Object.keys(inputResponses).length === 0 ? undefined : inputResponses;
    };
    for (;;) {
      const response = await ask(server, "tools/call", params, {
        capabilities: CAPABILITIES,
        logLevel: "debug",
        progressToken: "call",
        notify: (message) => io.err(notificationText(message)),
      });
      if (isObject(response.error)) {
        io.err(`toolshed: Cannot call tool "${name}": ${response.error.message}\n`);
        return EXIT.failed;
      }
      let result = isObject(response.result) ? response.result : {};
      if (result.resultType === "input_required") {
        const questions = isObject(result.inputRequests) ? result.inputRequests : {};
        const inputResponses = answersFor(questions);
        if (inputResponses === undefined) {
          io.err(unansweredText(name, questions));
          return EXIT.failed;
        }
        params = { name, arguments: toolArgs, inputResponses, requestState: result.requestState };
        continue;
      }
      if (result.resultType === "task") {
        const ended = await followTask(server, name, result, answersFor, io);
        if (typeof ended === "number") return ended;
        result = ended;
      }
      if (used < answers.length) {
        io.err(`toolshed: ${answers.length - used} --answer value(s) were not asked for\n`);
      }
      if (values.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
      else if (result.isError !== true) io.out(resultText(result));
      if (result.isError === true) {
        io.err(`Tool "${name}" failed: ${errorText(result)}\n`);
        return EXIT.failed;
      }
      return EXIT.ok;
    }
  },
};

/**
 * Polls the task a call became until it ends, answering what it asks from --answer (else
 * cancelling it); its result, or the exit code when it did not complete.
 */
async function followTask(
  server: Server,
  name: string,
  created: JsonObject,
  answersFor: (questions: JsonObject) => JsonObject | undefined,
  io: Io,
): Promise<JsonObject | number> {
  const taskId = created.taskId as string;
  const options = { capabilities: CAPABILITIES };
  let record: JsonObject = created;
  let said = "";
  for (;;) {
    const status = String(record.status);
    const line = `[task ${status}]${
      typeof record.statusMessage === "string" ? ` ${record.statusMessage}` : ""
    }\n`;
    if (line !== said) io.err(said = line);
    if (status === "completed") return isObject(record.result) ? record.result : {};
    if (status === "failed" || status === "cancelled") {
      const error = isObject(record.error) ? `: ${record.error.message}` : "";
      io.err(`toolshed: Tool "${name}" ran as task "${taskId}", which ${status}${error}\n`);
      return EXIT.failed;
    }
    if (status === "input_required") {
      const questions = isObject(record.inputRequests) ? record.inputRequests : {};
      const inputResponses = answersFor(questions);
      if (inputResponses === undefined) {
        io.err(unansweredText(name, questions));
        await ask(server, "tasks/cancel", { taskId }, options);
        return EXIT.failed;
      }
      await ask(server, "tasks/update", { taskId, inputResponses }, options);
    }
    const interval = typeof record.pollIntervalMs === "number" ? record.pollIntervalMs : 0;
    await new Promise((wake) =>
      setTimeout(wake, Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval)))
    );
    const response = await ask(server, "tasks/get", { taskId }, options);
    if (isObject(response.error)) {
      io.err(`toolshed: Cannot follow task "${taskId}": ${response.error.message}\n`);
      return EXIT.failed;
    }
    record = isObject(response.result) ? response.result : {};
  }
}

/**
 * The core's diagnostics, less the report of the error the tool threw: its message is the
 * failure call prints anyway, and its stack is shown only when asked for.
 */
function quieter(diagnostics: Diagnostics, name: string, verbose: boolean): Diagnostics {
  return {
    error: (message, error) => {
      if (message !== `Tool "${name}" failed`) diagnostics.error(message, error);
      else if (verbose) diagnostics.forward(diagnosticText(message, error), 1, "toolshed");
    },
    forward: diagnostics.forward,
  };
}

/** An --answer value as an elicitation result, or undefined when it is none. */
function answerOf(raw: string): JsonObject | undefined {
  if (raw === "decline" || raw === "cancel") return { action: raw };
  try {
    const content = JSON.parse(raw);
    return isObject(content) ? { action: "accept", content } : undefined;
  } catch {
    return undefined;
  }
}

/** The arguments as the command line gave them: one JSON object, or key=value pairs. */
function readWords(
  words: string[],
): { json: JsonObject } | { pairs: [string, string][] } | string {
  const isJson = (word: string) => /^\s*[{[]/.test(word);
  if (words.length === 1 && isJson(words[0])) {
    let value: unknown;
    try {
      value = JSON.parse(words[0]);
    } catch (error) {
      return `Cannot read the arguments as JSON: ${messageOf(error)}`;
    }
    if (!isObject(value)) {
      return `Invalid arguments: the JSON must be an object, such as {"text": "hi"}`;
    }
    return { json: value };
  }
  const pairs: [string, string][] = [];
  for (const word of words) {
    if (isJson(word)) {
      return `Invalid argument "${word}": give one JSON object or key=value pairs, not both`;
    }
    const equals = word.indexOf("=");
    if (equals === -1) {
      return `Invalid argument "${word}": give key=value, or all the arguments as one JSON object`;
    }
    const key = word.slice(0, equals);
    if (key === "") return `Invalid argument "${word}": the key before "=" is empty`;
    if (pairs.some(([seen]) => seen === key)) {
      return `Invalid argument "${word}": "${key}" is given twice`;
    }
    pairs.push([key, word.slice(equals + 1)]);
  }
  return { pairs };
}

/**
 * The pairs as an arguments object, each value read as the input schema declares its key,
 * or the first value that does not read as its type.
 */
function typedArguments(pairs: [string, string][], schema: unknown): JsonObject | string {
  const root = resolved(schema, schema);
  const properties = isObject(root?.properties) ? root.properties : {};
  const args: JsonObject = {};
  for (const [key, raw] of pairs) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const types = property === undefined ? undefined : declaredTypes(property, schema);
    if (types === undefined || types.length === 0) {
      args[key] = untyped(raw, resolved(property, schema)?.enum);
      continue;
    }
    const value = typedValue(raw, types);
    if (typeof value === "string") return `Invalid argument "${key}=${raw}": ${value}`;
    args[key] = value.value;
  }
  return args;
}

/** A value of no declared type: JSON when it parses (and fits an enum), else the text. */
function untyped(raw: string, choices: unknown): unknown {
  try {
    const value = JSON.parse(raw);
    if (Array.isArray(choices) && !choices.some((choice) => shown(choice) === shown(value))) {
      return raw;
    }
    return value;
  } catch {
    return raw;
  }
}

const INTEGER = /^-?(0|[1-9]\d*)$/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** `raw` read as the first of `types` it is, or why it is none of them. */
function typedValue(raw: string, types: string[]): { value: unknown } | string {
  let detail = "";
  for (const type of types) {
    switch (type) {
      case "string":
        break; // last: anything is a string
      case "integer":
        if (INTEGER.test(raw) && Number.isSafeInteger(Number(raw))) return { value: Number(raw) };
        break;
      case "number":
        if (NUMBER.test(raw) && Number.isFinite(Number(raw))) return { value: Number(raw) };
        break;
      case "boolean":
        if (raw === "true" || raw === "false") return { value: raw === "true" };
        break;
      case "null":
        if (raw === "null") return { value: null };
        break;
      case "object":
      case "array":
        try {
          const value = JSON.parse(raw);
          if (type === "object" ? isObject(value) : Array.isArray(value)) return { value };
        } catch (error) {
          detail = `: ${messageOf(error)}`;
        }
        break;
    }
  }
  if (types.includes("string")) return { value: raw };
  const names = types.map((type) =>
    type === "integer"
      ? "an integer"
      : type === "number"
      ? "a number"
      : type === "boolean"
      ? "true or false"
      : type === "null"
      ? "null"
      : `a JSON ${type}`
  );
  return `"${raw}" is not ${names.join(" or ")}${detail}`;
}

/** What the tool asked and why call stops there, for stderr. */
function unansweredText(name: string, questions: JsonObject): string {
  const asked = Object.entries(questions).map(([key, question]) => questionText(key, question));
  const onlyUser = Object.values(questions).every((question) =>
    isObject(question) && question.method === "elicitation/create"
  );
  const how = onlyUser
    ? "Answer with --answer, once per question in the order asked: a JSON object of the " +
      "fields asked for, or decline, or cancel"
    : "toolshed call can answer only questions of the user (elicitation/create), with --answer";
  return `toolshed: Tool "${name}" asks the client for input:\n${asked.join("\n")}\n${how}\n`;
}

/** A progress or log notification of the call, as a line of stderr. */
function notificationText(message: JsonObject): string {
  const params = isObject(message.params) ? message.params : {};
  if (message.method === "notifications/progress") {
    const total = params.total === undefined ? "" : `/${params.total}`;
    const about = typeof params.message === "string" ? ` ${params.message}` : "";
    return `[progress ${params.progress}${total}]${about}\n`;
  }
  if (message.method === "notifications/message") {
    const logger = typeof params.logger === "string" ? ` ${params.logger}` : "";
    const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
    return `[${params.level}${logger}] ${data}\n`;
  }
  return `${JSON.stringify(message)}\n`;
}
