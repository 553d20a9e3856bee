// examples/toolsets: what its README promises. It type-checks; `toolshed list` shows every set by
// default, one set (and the top-level tool) with --toolsets, and only readOnlyHint tools with
// --read-only; an unknown set is a usage error naming those there are. The SDK client over HTTP
// and stdio runs against this directory in tests/toolsets_interop_test.ts.
import assert from "node:assert/strict";
import { toolshed } from "./_example.ts";

/** The tool names `toolshed list --dir examples/toolsets ARGS` prints. */
async function listed(args: string[] = []): Promise<string[]> {
  const run = await toolshed(["list", "--dir", "examples/toolsets", "--json", ...args]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout).tools.map((tool: { name: string }) => tool.name);
}

Deno.test("examples/toolsets: toolshed list shows every set, one set with --toolsets, readOnlyHint tools with --read-only", async () => {
  assert.deepEqual(await listed(), [
    "close_issue",
    "create_repo",
    "list_issues",
    "list_repos",
    "whoami",
  ]);
  assert.deepEqual(await listed(["--toolsets", "repos"]), ["create_repo", "list_repos", "whoami"]);
  assert.deepEqual(await listed(["--read-only"]), ["list_issues", "list_repos", "whoami"]);
  const text = await toolshed(["list", "--dir", "examples/toolsets", "--toolsets", "issues"]);
  assert.match(text.stdout, /^ {2}list_issues\n {4}Lists the open issues\n {4}Toolset: issues$/m);
  const unknown = await toolshed(["list", "--dir", "examples/toolsets", "--toolsets", "wiki"]);
  assert.deepEqual([unknown.code, unknown.stderr], [
    2,
    'toolshed: Cannot serve the toolsets asked for: No toolset "wiki": this server has "issues", ' +
    '"repos"\n',
  ]);
});
