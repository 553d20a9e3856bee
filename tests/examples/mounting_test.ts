// examples/mounting: what its README promises. The mounted reference server (started with npx,
// fetched once here so that no step waits on the registry) is checked against the pins committed,
// which are exactly what `toolshed check --update-pins` writes; `toolshed list` shows the four
// tools the block keeps, one renamed and one described anew, beside the directory's own; a call
// goes through; and the mounted server's environment holds none of toolshed's but what it needs.
import assert from "node:assert/strict";
import { assertChecks, exampleDir, toolshed } from "./_example.ts";
import { withHangGuard } from "../_server_process.ts";

const DIR = exampleDir("mounting");

/** Fetches the reference server into npx's cache (it exits at once: its stdin is closed). */
async function fetchReference(): Promise<void> {
  const mount = JSON.parse(await Deno.readTextFile(`${DIR}tools/reference.mcp.json`));
  await withHangGuard(
    new Deno.Command(mount.command, {
      args: mount.args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    })
      .output(),
    "npx fetching the reference server",
    180_000,
  );
}

Deno.test("examples/mounting passes toolshed check, its pins what check --update-pins writes", async () => {
  await fetchReference();
  await assertChecks("mounting");
  const scratch = await Deno.makeTempDir({ prefix: "toolshed_mounting_pins_" });
  try {
    await Deno.mkdir(`${scratch}/tools`);
    await Deno.copyFile(`${DIR}tools/reference.mcp.json`, `${scratch}/tools/reference.mcp.json`);
    const updated = await toolshed(["check", "--update-pins", "--no-types", "--dir", scratch]);
    assert.equal(updated.code, 0, updated.stdout + updated.stderr);
    assert.equal(
      await Deno.readTextFile(`${scratch}/tools/reference.pins.json`),
      await Deno.readTextFile(`${DIR}tools/reference.pins.json`),
      "examples/mounting/tools/reference.pins.json is not what toolshed check --update-pins writes",
    );
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});

Deno.test("examples/mounting: list shows the tools the block keeps, and a call goes through", async () => {
  await fetchReference();
  const listed = await toolshed(["list", "--dir", "examples/mounting", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  const tools = JSON.parse(listed.stdout).tools as { name: string; description: string }[];
  assert.deepEqual(tools.map((tool) => tool.name), [
    "greet",
    "reference_add",
    "reference_echo",
    "reference_get-env",
    "reference_trigger-long-running-operation",
  ]);
  assert.equal(
    tools.find((tool) => tool.name === "reference_get-env")?.description,
    "Lists the environment variables the reference server was started with",
  );
  const sum = await toolshed(["call", "reference_add", "--dir", "examples/mounting", "a=2", "b=3"]);
  assert.equal(sum.code, 0, sum.stderr);
  assert.equal(sum.stdout.trim(), "The sum of 2 and 3 is 5.");
  const env = await toolshed(
    ["call", "reference_get-env", "--dir", "examples/mounting", "--json"],
    {
      ...Deno.env.toObject(),
      TOOLSHED_EXAMPLE_SECRET: "not for the upstream",
    },
  );
  assert.equal(env.code, 0, env.stderr);
  const seen = JSON.parse(JSON.parse(env.stdout).content[0].text);
  assert.ok("PATH" in seen, "the upstream gets PATH");
  assert.ok(!("TOOLSHED_EXAMPLE_SECRET" in seen), "and not the rest of toolshed's environment");
});
