// lintForClients (lib/schema/client_lint.ts): each rule fires past its client's limit and not at
// it, names the client and the rule, and takes its number from lib/schema/client_limits.ts, whose
// every row has sources, a date, and a line in the docs' table.
import assert from "node:assert/strict";
import { type ClientLintedTool, lintForClients } from "../lib/schema/client_lint.ts";
import { CLIENT_RULES } from "../lib/schema/client_limits.ts";

const READ_ONLY = { readOnlyHint: true };
/** Annotations with a title and no hint (ToolAnnotations has a title; the lint reads none). */
const TITLED = { title: "T" } as ClientLintedTool["annotations"];

/** `count` tools that break no per-tool rule. */
function quietTools(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    name: `t${index}`,
    description: "d",
    annotations: READ_ONLY,
  }));
}

/** The [rule, clients, tool] of each finding. */
function summary(tools: readonly ClientLintedTool[]) {
  return lintForClients(tools).map((found) => [found.rule, found.clients, found.tool]);
}

Deno.test("lintForClients() warns on a tool that sets neither readOnlyHint nor destructiveHint", () => {
  assert.deepEqual(
    summary([
      { name: "none", description: "d" },
      { name: "titled", description: "d", annotations: TITLED },
      { name: "not_boolean", description: "d", annotations: { readOnlyHint: "yes" } },
      { name: "read_only", description: "d", annotations: READ_ONLY },
      { name: "writes", description: "d", annotations: { readOnlyHint: false } },
      { name: "adds", description: "d", annotations: { destructiveHint: false } },
      { name: "deletes", description: "d", annotations: { destructiveHint: true } },
    ]),
    [
      ["openai-hints", ["OpenAI"], "none"],
      ["openai-hints", ["OpenAI"], "titled"],
      ["openai-hints", ["OpenAI"], "not_boolean"],
    ],
  );
  const [found] = lintForClients([{ name: "none", description: "d" }]);
  assert.equal(found.severity, "warning");
  assert.match(found.message, /^no readOnlyHint or destructiveHint in annotations: OpenAI's /);
});

Deno.test("lintForClients() warns on a description Claude Code truncates, past 2048 characters only", () => {
  const tool = (length: number) => ({
    name: `d${length}`,
    description: "x".repeat(length),
    annotations: READ_ONLY,
  });
  assert.deepEqual(summary([tool(2048), tool(2049)]), [
    ["claude-code-description", ["Claude Code"], "d2049"],
  ]);
  assert.equal(
    lintForClients([tool(2049)])[0].message,
    "the description is 2049 characters long: Claude Code truncates it at 2048, so the model " +
      "never reads the rest (put what matters first)",
  );
});

Deno.test("lintForClients() leaves the number of tools to each endpoint's report (check_endpoints.ts)", () => {
  assert.deepEqual(summary(quietTools(129)), []);
});

Deno.test("CLIENT_RULES: every rule has sources, a date, a unique id and a row in the docs", async () => {
  const page = await Deno.readTextFile(
    new URL("../docs/authoring/clients-lint.md", import.meta.url),
  );
  const ids = new Set<string>();
  for (const rule of CLIENT_RULES) {
    assert.ok(!ids.has(rule.id), `"${rule.id}" twice`);
    ids.add(rule.id);
    assert.ok(rule.sources.length > 0, rule.id);
    assert.match(rule.checked, /^\d{4}-\d{2}-\d{2}$/, rule.id);
    for (const source of rule.sources) assert.match(source, /^https:\/\//, rule.id);
    const row = page.split("\n").find((line) => line.startsWith(`| \`${rule.id}\``));
    assert.ok(row !== undefined, `docs/authoring/clients-lint.md has no row for "${rule.id}"`);
    assert.ok(row.includes(rule.client), `${rule.id}: the row names no "${rule.client}"`);
    if (rule.limit !== undefined) assert.ok(row.includes(String(rule.limit)), rule.id);
    assert.ok(row.includes(rule.evidence), `${rule.id}: the row does not say "${rule.evidence}"`);
    assert.ok(row.includes(rule.checked), `${rule.id}: the row does not say "${rule.checked}"`);
    for (const source of rule.sources) assert.ok(page.includes(source), `${rule.id}: ${source}`);
  }
});
