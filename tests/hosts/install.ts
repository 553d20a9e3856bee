// deno-lint-ignore-file no-console -- a setup script prints what it does for people
// Installs the MCP hosts whose own readers check what `toolshed config` writes (Gemini CLI,
// Qwen Code, Codex, opencode, Copilot CLI and Cline), and Claude Code, which follows a job
// headless against a model on loopback, each pinned in npm-package.json and
// npm-package-lock.json beside this file (named so that Deno does not take this folder for an
// npm package), into .cache/hosts/ with `npm install` from that lock, for
// tests/config_hosts_live_test.ts and tests/jobs_host_test.ts:
//
//   deno run -A tests/hosts/install.ts
//
// .ci/run runs it before the tests (about 30 s from the registry); there, a missing host fails
// the tests instead of skipping them. A cache installed from this very lockfile is reused.
// Continue has no `mcp list` of its own to install: its files are checked against its
// documented schema (tests/config_hosts_test.ts).
import { HOSTS_CACHE, hostsProblem } from "../_mcp_hosts.ts";

const HERE = decodeURIComponent(new URL("./", import.meta.url).pathname);
const STAMP = `${HOSTS_CACHE}/installed-from-lock.json`;

const manifest = await Deno.readTextFile(`${HERE}npm-package.json`);
const lock = await Deno.readTextFile(`${HERE}npm-package-lock.json`);
const stamp = await Deno.readTextFile(STAMP).catch(() => undefined);
if (stamp === lock && await hostsProblem() === undefined) {
  console.log(`The MCP hosts are installed in ${HOSTS_CACHE}`);
  Deno.exit(0);
}
console.log(`Installing the MCP hosts into ${HOSTS_CACHE}`);
await Deno.remove(HOSTS_CACHE, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
await Deno.mkdir(HOSTS_CACHE, { recursive: true });
await Deno.writeTextFile(`${HOSTS_CACHE}/package.json`, manifest);
await Deno.writeTextFile(`${HOSTS_CACHE}/package-lock.json`, lock);
// `npm install`, not `npm ci`: Cline and Qwen Code name optional packages for other platforms
// that no lock records, which `npm ci` takes for a lock out of date. Install scripts run:
// opencode's puts its platform's binary in place.
const npm = await new Deno.Command("npm", {
  args: ["install", "--no-audit", "--no-fund", "--loglevel=error"],
  cwd: HOSTS_CACHE,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!npm.success) {
  console.error(`Cannot install the MCP hosts: npm install exited with code ${npm.code}`);
  Deno.exit(1);
}
const problem = await hostsProblem();
if (problem !== undefined) {
  console.error(`Cannot use the installed MCP hosts: ${problem}`);
  Deno.exit(1);
}
await Deno.writeTextFile(STAMP, lock); // the lock as given, which npm install may have rewritten
console.log("Installed");
