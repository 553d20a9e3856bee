// The server directory's own deno.json (lib/commands/scaffold_deno_json.ts, adr/0068): where it
// maps "@toolshed/toolshed" and how its check task runs toolshed, for each way toolshed runs —
// from a clone, from the npm package's bundle, from a URL — and none from a compiled binary.
// tests/server_outside_test.ts runs what it writes, from a directory outside the repository.
import assert from "node:assert/strict";
import { serverDenoJson } from "../lib/commands/scaffold_deno_json.ts";

function written(here: string) {
  const made = serverDenoJson(here, false);
  assert.ok(made !== undefined);
  const config = JSON.parse(made.text);
  assert.equal(config.imports["@toolshed/toolshed"], made.mod);
  return { mod: made.mod, tasks: config.tasks as Record<string, string> };
}

Deno.test("serverDenoJson: a clone's mod.ts by its absolute file URL, its main.ts by path", () => {
  const { mod, tasks } = written("file:///home/you/toolshed/lib/commands/scaffold_deno_json.ts");
  assert.equal(mod, "file:///home/you/toolshed/mod.ts");
  assert.equal(tasks.check, "deno run -A /home/you/toolshed/main.ts check");
  assert.equal(tasks.test, "deno test -A --permit-no-files");
  // A path the task's shell would split is quoted.
  assert.equal(
    written("file:///home/you/my%20tools/lib/commands/scaffold_deno_json.ts").tasks.check,
    "deno run -A '/home/you/my tools/main.ts' check",
  );
});

Deno.test("serverDenoJson: from the npm package's bundle, the package's mod.ts and the bundle", () => {
  const bundle = "file:///usr/lib/node_modules/toolshed/dist/bundle/toolshed.js";
  const { mod, tasks } = written(bundle);
  assert.equal(mod, "file:///usr/lib/node_modules/toolshed/mod.ts");
  assert.equal(
    tasks.check,
    "deno run -A /usr/lib/node_modules/toolshed/dist/bundle/toolshed.js check",
  );
});

Deno.test("serverDenoJson: from a chunk of the npm package's split bundle, the package's mod.ts and the bundle's entry", () => {
  const chunk = "file:///usr/lib/node_modules/toolshed/dist/bundle/new-JWE7H6GW.js";
  const { mod, tasks } = written(chunk);
  assert.equal(mod, "file:///usr/lib/node_modules/toolshed/mod.ts");
  assert.equal(
    tasks.check,
    "deno run -A /usr/lib/node_modules/toolshed/dist/bundle/toolshed.js check",
  );
});

Deno.test("serverDenoJson: from a URL, the mod.ts beside main.ts at that URL", () => {
  const { mod, tasks } = written(
    "https://example.com/toolshed/v1/lib/commands/scaffold_deno_json.ts",
  );
  assert.equal(mod, "https://example.com/toolshed/v1/mod.ts");
  assert.equal(tasks.check, "deno run -A https://example.com/toolshed/v1/main.ts check");
});

Deno.test("serverDenoJson: a compiled toolshed writes none (it holds no mod.ts to import)", () => {
  assert.equal(serverDenoJson(import.meta.url, true), undefined);
});
