// examples/code-mode: what its README promises, with the commands it shows — the three tools
// listed, the search finding reserve_book, the declarations, the run reserving Le Guin's one
// available book in two calls, and the write policy (a destructive tool only with the flag, a
// write that did not opt in never).
import assert from "node:assert/strict";
import { assertChecks, toolshed } from "./_example.ts";

const DIR = ["--dir", "examples/code-mode", "--code-mode"];

const RUN = 'const { books } = await tools.find_books({ author: "Le Guin" }); const out = []; ' +
  "for (const book of books.filter((each) => each.available)) " +
  "out.push(await tools.reserve_book({ id: book.id })); return out;";

/** `toolshed call NAME … --json` on the example in code mode: the CallToolResult. */
async function call(name: string, args: string[], flags: string[] = []) {
  const run = await toolshed(["call", name, ...args, ...DIR, ...flags, "--json"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  return JSON.parse(run.stdout);
}

Deno.test("examples/code-mode passes toolshed check", async () => {
  await assertChecks("code-mode");
});

Deno.test("examples/code-mode: list shows code mode's tools, and search finds reserve_book first", async () => {
  const list = await toolshed(["list", ...DIR, "--json"]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(
    JSON.parse(list.stdout).tools.map((tool: { name: string }) => tool.name),
    ["describe_tools", "run_code", "search_tools"],
  );
  const found = await call("search_tools", ["query=reserve a book"]);
  assert.equal(found.structuredContent.hits[0].name, "reserve_book");
  const names = found.structuredContent.hits.map((hit: { name: string }) => hit.name);
  assert.ok(!names.includes("email_librarian"), `a write that did not opt in: ${names}`);
});

Deno.test("examples/code-mode: describe_tools prints the tools as TypeScript", async () => {
  const described = await call("describe_tools", ['names=["find_books","reserve_book"]']);
  const text: string = described.content[0].text;
  assert.match(text, /^declare const tools: \{/m);
  assert.match(text, /find_books\(args\?: \{/);
  assert.match(text, /reserve_book\(args: \{/);
  assert.match(text, /type FindBooksResult = \{\n {2}books: Array</);
});

Deno.test("examples/code-mode: run_code reserves Le Guin's available book in two calls", async () => {
  const ran = await call("run_code", [`code=${RUN}`]);
  assert.notEqual(ran.isError, true, JSON.stringify(ran));
  assert.deepEqual(ran.structuredContent.value, ['Reserved "The Left Hand of Darkness"']);
  assert.equal(ran.structuredContent.calls, 2);
});

Deno.test("examples/code-mode: a destructive tool only with --code-destructive, a write that did not opt in never", async () => {
  const attempt =
    "const out = {}; for (const name of ['cancel_reservations', 'email_librarian']) " +
    "{ try { out[name] = await tools[name]({ message: 'hi' }); } catch { out[name] = 'refused'; } } " +
    "return out;";
  const plain = await call("run_code", [`code=${attempt}`]);
  assert.deepEqual(plain.structuredContent.value, {
    cancel_reservations: "refused",
    email_librarian: "refused",
  });
  const allowed = await call("run_code", [`code=${attempt}`], ["--code-destructive"]);
  assert.deepEqual(allowed.structuredContent.value, {
    cancel_reservations: "Cancelled every reservation",
    email_librarian: "refused",
  });
});
