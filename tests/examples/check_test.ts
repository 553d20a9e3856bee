// Every example passes `toolshed check` (its files load and type-check, so what a reader copies
// from it type-checks too), and the embedding example's own app.ts type-checks. One file on the
// slow list (tests/fast_tier.ts): each check is a type-check in a process, seconds apiece, where
// the example's own test file makes its requests in process and stays in the fast tier.
import assert from "node:assert/strict";
import { assertChecks, ROOT } from "./_example.ts";

/** The examples each test file checked before this file gathered the checks (all but apps). */
const CHECKED = [
  "any-language",
  "asking",
  "audit-log",
  "embedding",
  "hello",
  "http-behind-proxy",
  "metrics",
  "oauth",
  "resources-and-templates",
  "scale-out",
  "skills",
  "tasks",
  "toolsets",
];

for (const name of CHECKED) {
  Deno.test(`examples/${name} passes toolshed check`, async () => {
    await assertChecks(name);
  });
}

Deno.test("examples/embedding/app.ts type-checks", async () => {
  const checked = await new Deno.Command(Deno.execPath(), {
    args: ["check", "examples/embedding/app.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(checked.code, 0, new TextDecoder().decode(checked.stderr));
});
