// Transcripts are the contract: each file in tests/transcripts/ is one connection. `>`
// lines are sent as they are; the `<` lines after one must be exactly the next lines the
// server writes. `= eof` ends input; the `<` lines after it are what the server writes
// before it is done (a real process must then exit with code 0). Nothing else may appear.
// `# flags: ...` adds command-line flags, parsed as main.ts parses them; the tools are
// tests/fixtures/tools/. `{{version}}` stands for the server's version, `{{mtime}}` for a
// file resource's `lastModified` (a checkout's file times differ). Other lines
// starting with `#` are comments.
//
// Every transcript runs in this process (tests/_in_process.ts: the server wired as main.ts
// wires it, over memory instead of stdin and stdout), in milliseconds. A file with a
// `# process` line runs against a real main.ts process too, as a smoke test of what only a
// process has (its exit code, its stderr); one with `# process only` runs only there, for
// the fixture tools that only main.ts's guards tame (NOT_IN_PROCESS).
//
// A mismatch shows both lines as indented JSON, diffed, with the first differing path.
// `deno test -A tests/transcript_test.ts -- --update` rewrites the `<` lines from what the
// server wrote instead, for a person to review with `git diff`: as many lines after each
// `>` line as the file has there (write `< ?` placeholders for a new one), and everything
// after `= eof` or, without one, after the last line.
import assert from "node:assert/strict";
import denoConfig from "../deno.json" with { type: "json" };
import { NOT_IN_PROCESS, startInProcess } from "./_in_process.ts";
import { lineMismatch } from "./_line_diff.ts";
import { FIXTURE_TOOLS, spawnServer, withHangGuard } from "./_server_process.ts";

const DIR = new URL("./transcripts/", import.meta.url);
const UPDATE = Deno.args.includes("--update");

/** Words of the 2026-07-28 revision that no answer in a legacy session may contain. */
const MODERN_VOCABULARY = /resultType|ttlMs|cacheScope|io\.modelcontextprotocol\//;
const CLAIM = '"io.modelcontextprotocol/protocolVersion"';
const VERSION_TEXT = `"name":"toolshed","version":"${denoConfig.version}"`;
const VERSION_PLACEHOLDER = '"name":"toolshed","version":"{{version}}"';
/** A file resource's modification time, as a listing carries it. */
const MTIME = /"lastModified":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"/g;
const MTIME_PLACEHOLDER = '"lastModified":"{{mtime}}"';

interface Step {
  /** The line sent; undefined for `= eof`. */
  send?: string;
  /** Where the `>` or `= eof` line is in the file (0-based). */
  at: number;
  expect: string[];
  /** Where each `<` line is in the file (0-based). */
  expectAt: number[];
}

interface Transcript {
  file: string;
  /** The file's lines as written. */
  lines: string[];
  flags: string[];
  where: "in process" | "also a process" | "process only";
  steps: Step[];
}

function parse(file: string, text: string): Transcript {
  const transcript: Transcript = {
    file,
    lines: text.split("\n"),
    flags: [],
    where: "in process",
    steps: [],
  };
  const { steps } = transcript;
  transcript.lines.forEach((raw, at) => {
    const line = raw.replaceAll("{{version}}", denoConfig.version);
    if (line.startsWith("# flags:")) transcript.flags.push(...line.slice(8).trim().split(/\s+/));
    else if (line === "# process") transcript.where = "also a process";
    else if (line === "# process only") transcript.where = "process only";
    else if (line.startsWith("> ")) {
      steps.push({ send: line.slice(2), at, expect: [], expectAt: [] });
    } else if (line === "= eof") steps.push({ at, expect: [], expectAt: [] });
    else if (line.startsWith("< ")) {
      if (steps.length === 0) {
        throw new Error(`${file}:${at + 1}: an expected line comes before any sent line`);
      }
      steps[steps.length - 1].expect.push(line.slice(2));
      steps[steps.length - 1].expectAt.push(at);
    } else if (line !== "" && !line.startsWith("#")) {
      throw new Error(`${file}:${at + 1}: unknown transcript line: ${line}`);
    }
  });
  if (transcript.where !== "process only") {
    for (const step of steps) {
      const called = calledTool(step.send);
      if (called !== undefined && NOT_IN_PROCESS.has(called)) {
        throw new Error(
          `${file}:${step.at + 1}: calls "${called}", which only main.ts's guards tame: ` +
            `mark the transcript "# process only"`,
        );
      }
    }
  }
  return transcript;
}

/** The tool a `tools/call` line names, if it is one. */
function calledTool(line: string | undefined): string | undefined {
  try {
    const message = JSON.parse(line ?? "");
    return message?.method === "tools/call" ? message.params?.name : undefined;
  } catch {
    return undefined;
  }
}

/** One connection to a server, in this process or in a real one. */
interface Connection {
  send(line: string): Promise<void>;
  nextLine(): Promise<string | null>;
  /** Ends input and waits for the server to be done: the lines it wrote meanwhile, and its log. */
  end(): Promise<{ rest: string[]; log: string; code?: number }>;
}

async function inProcess(flags: string[]): Promise<Connection> {
  const server = await startInProcess(flags);
  return {
    send: (line) => Promise.resolve(server.send(line)),
    nextLine: () => server.nextLine(),
    async end() {
      const { rest, diagnostics } = await server.end();
      return { rest, log: diagnostics.text() };
    },
  };
}

function realProcess(flags: string[]): Connection {
  // --verbose: a failed tool's line is then the message alone (its stack follows on lines
  // of its own), as the in-process recorder has it.
  const server = spawnServer(
    flags.includes("--tools") || flags.includes("--dir")
      ? [...flags, "--verbose"]
      : ["--tools", FIXTURE_TOOLS, ...flags, "--verbose"],
  );
  return {
    send: (line) => server.send(line),
    nextLine: () => server.nextLine(),
    async end() {
      const { code, rest, stderr } = await withHangGuard(server.finish(), "the end of input");
      return { rest, code, log: stderr };
    },
  };
}

/**
 * Runs a transcript over `connection`; returns the lines the server wrote, per step, and
 * its log. Outside update mode, the first line that differs fails it.
 */
async function run(
  transcript: Transcript,
  connection: Connection,
): Promise<{ actual: string[][]; log: string }> {
  const { file, steps } = transcript;
  const actual: string[][] = [];
  let failure: unknown;
  let ended: { rest: string[]; log: string; code?: number } | undefined;
  try {
    for (const step of steps) {
      if (step.send === undefined) {
        ended = await connection.end();
        actual.push(ended.rest);
        if (!UPDATE) compareRest(file, step, step.expect, ended.rest);
        continue;
      }
      await connection.send(step.send);
      const got: string[] = [];
      for (const [index, expected] of step.expect.entries()) {
        const written = await withHangGuard(connection.nextLine(), `${file}:${step.at + 1}`);
        const line = written?.replaceAll(MTIME, MTIME_PLACEHOLDER) ?? null;
        if (line === null) {
          assert.fail(
            `${file}:${step.expectAt[index] + 1}: the server ended its output instead of ` +
              `answering line ${step.at + 1} (${short(step.send)})`,
          );
        }
        got.push(line);
        const mismatch = UPDATE ? undefined : lineMismatch(expected, line);
        if (mismatch) {
          assert.fail(
            `${file}:${step.expectAt[index] + 1}: the answer to line ${step.at + 1} ` +
              `(${short(step.send)}) is not the expected one: ${mismatch}`,
          );
        }
      }
      actual.push(got);
      // In legacy_* transcripts, answers to requests without a 2026-07-28 claim must not
      // speak 2026-07-28.
      if (file.startsWith("legacy_") && !step.send.includes(CLAIM)) {
        for (const line of got) {
          assert.equal(MODERN_VOCABULARY.test(line), false, `2026 words in: ${line}`);
        }
      }
    }
    if (!ended) {
      ended = await connection.end();
      if (UPDATE) actual[actual.length - 1]?.push(...ended.rest);
      else compareRest(file, undefined, [], ended.rest);
    }
    assert.equal(ended.code ?? 0, 0, `${file}: the process exited with ${ended.code}`);
  } catch (error) {
    failure = error;
  }
  if (!ended) {
    try {
      ended = await connection.end();
    } catch (error) {
      ended = { rest: [], log: `(could not end the connection: ${error})` };
    }
  }
  if (failure !== undefined) {
    if (failure instanceof Error) {
      failure.message += `\n--- what the server reported ---\n${ended.log}`;
    }
    throw failure;
  }
  return { actual, log: ended.log };
}

/** Compares the lines written after end of input (or after the last line) with `expect`. */
function compareRest(file: string, step: Step | undefined, expect: string[], rest: string[]) {
  const where = step ? `after end of input (line ${step.at + 1})` : "after the last line";
  const problems: string[] = [];
  for (let i = 0; i < Math.max(expect.length, rest.length); i++) {
    if (i >= rest.length) problems.push(`missing: ${expect[i]}`);
    else if (i >= expect.length) problems.push(`unexpected: ${rest[i]}`);
    else {
      const mismatch = lineMismatch(expect[i], rest[i]);
      if (mismatch) problems.push(`line ${i + 1} ${mismatch}`);
    }
  }
  if (problems.length > 0) {
    assert.fail(`${file}: the output ${where} is not the expected one:\n${problems.join("\n")}`);
  }
}

function short(line: string): string {
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** The file with its `<` lines replaced by what the server wrote. */
function rewritten(transcript: Transcript, actual: string[][]): string {
  const dropped = new Set(transcript.steps.flatMap((step) => step.expectAt));
  const inserted = new Map<number, string[]>();
  transcript.steps.forEach((step, index) => {
    const lines = (actual[index] ?? []).map((line) =>
      `< ${line.replaceAll(VERSION_TEXT, VERSION_PLACEHOLDER)}`
    );
    inserted.set(step.expectAt.at(-1) ?? step.at, lines);
  });
  return transcript.lines.flatMap((line, at) => [
    ...dropped.has(at) ? [] : [line],
    ...inserted.get(at) ?? [],
  ]).join("\n");
}

/** The `toolshed:` lines of a log (diagnostics, not stacks or a tool's own output). */
function diagnosticLines(log: string): string[] {
  return log.split("\n").filter((line) => line.startsWith("toolshed: "));
}

async function read(file: string): Promise<Transcript> {
  return parse(file, await Deno.readTextFile(new URL(file, DIR)));
}

async function update(transcript: Transcript, actual: string[][]): Promise<void> {
  const text = rewritten(transcript, actual);
  if (text !== transcript.lines.join("\n")) {
    await Deno.writeTextFile(new URL(transcript.file, DIR), text);
    // deno-lint-ignore no-console -- says which files update mode changed
    console.log(`updated tests/transcripts/${transcript.file}`);
  }
}

const files = [...Deno.readDirSync(DIR)].map((entry) => entry.name).filter((name) =>
  name.endsWith(".txt")
).sort();

for (const file of files) {
  const name = file.replace(/\.txt$/, "");
  let where: Transcript["where"];
  try {
    ({ where } = parse(file, Deno.readTextFileSync(new URL(file, DIR))));
  } catch (error) {
    Deno.test(`transcript ${name}`, () => Promise.reject(error)); // a malformed file fails here
    continue;
  }
  if (where !== "process only") {
    Deno.test(`transcript ${name}`, async () => {
      const transcript = await read(file);
      const { actual } = await run(transcript, await inProcess(transcript.flags));
      if (UPDATE) await update(transcript, actual);
    });
  }
  if (where !== "in process") {
    Deno.test(`transcript ${name} (real process)`, async () => {
      const transcript = await read(file);
      const { actual, log } = await run(transcript, realProcess(transcript.flags));
      if (UPDATE && where === "process only") await update(transcript, actual);
      if (where === "also a process" && !UPDATE) {
        // The process reports on stderr what the server reports in process.
        const reference = await run(transcript, await inProcess(transcript.flags));
        assert.deepEqual(diagnosticLines(log), diagnosticLines(reference.log), log);
      }
    });
  }
}
