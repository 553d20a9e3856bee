// Prompt discovery and prompts as served: Markdown prompts (front matter, placeholders),
// prompt modules (what `get` may return), the start-up message for each bad one, and the
// argument check the core runs before `get`. Every test writes its prompt files into a fresh
// temporary directory (a fresh module URL, so the module cache never hides a change).
import assert from "node:assert/strict";
import { loadPrompts } from "../lib/discovery/prompts_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { argumentProblem, type Prompt } from "../lib/primitives/prompts.ts";
import type { PromptContext } from "../lib/primitives/types.ts";
import { recorder } from "./_diagnostics.ts";

const OPTIONS = { allowOutsideSymlinks: false, diagnostics: recorder() };
const REPO_PROMPTS = decodeURIComponent(new URL("../prompts/", import.meta.url).pathname);
const FIXTURE_PROMPTS = new URL("./conformance/fixture/prompts/", import.meta.url);
const NAME_RULE = 'use 1 to 128 letters, digits, "_", "-" or "."';
const MARKDOWN_FIELDS =
  '"name", "title", "description", "arguments", "complete", "icons", "_meta", "scopes"';
const MODULE_FIELDS =
  '"name", "title", "description", "arguments", "complete", "icons", "_meta", "timeoutMs", "scopes", "get"';

/** Writes `files` (file name -> text; `null` makes a directory) into a temporary directory. */
async function withPromptsDir(
  files: Record<string, string | null>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_prompts_" });
  try {
    for (const [path, text] of Object.entries(files)) {
      if (text === null) await Deno.mkdir(`${dir}/${path}`, { recursive: true });
      else await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Loads `dir`, which must fail; returns the problems after checking the error's shape. */
async function loadProblems(dir: string | URL): Promise<readonly string[]> {
  let prompts: Prompt[] | undefined;
  try {
    prompts = await loadPrompts(dir, OPTIONS);
  } catch (error) {
    assert.ok(error instanceof DirectoryLoadError, `expected a DirectoryLoadError: ${error}`);
    assert.strictEqual(error.message, error.problems.join("\n"));
    return error.problems;
  }
  assert.fail(`loadPrompts() succeeded with ${prompts.map((prompt) => prompt.name).join(", ")}`);
}

/** Loads the one prompt `files` define. */
async function onePrompt(files: Record<string, string>): Promise<Prompt> {
  let found: Prompt[] = [];
  await withPromptsDir(files, async (dir) => {
    found = await loadPrompts(dir, OPTIONS);
  });
  assert.strictEqual(found.length, 1);
  return found[0];
}

function context(promptName: string): PromptContext {
  return {
    signal: new AbortController().signal,
    requestId: 1,
    protocolVersion: "2025-11-25",
    clientInfo: undefined,
    clientCapabilities: {},
    progress() {},
    log() {},
    request: () => Promise.reject(new Error("no client")),
    closeStream: () => false,
    promptName,
  };
}

function get(prompt: Prompt, args: Record<string, string> = {}) {
  return prompt.get(args, context(prompt.name));
}

/** The text of the only message of `prompt` for `args`. */
async function textOf(prompt: Prompt, args: Record<string, string> = {}): Promise<string> {
  const { messages } = await get(prompt, args);
  assert.strictEqual(messages.length, 1);
  assert.strictEqual(messages[0].role, "user");
  const content = messages[0].content as { type: string; text: string };
  assert.strictEqual(content.type, "text");
  return content.text;
}

/** A module prompt whose `get` body is `body` (source text), with more fields in `extra`. */
function moduleSource(body: string, extra = ""): string {
  return `export default {
  description: "A test prompt",
  ${extra}
  get: (args, ctx) => ${body},
};
`;
}

function markdown(front: string, body = "Hello"): string {
  return `---\n${front}\n---\n${body}\n`;
}

Deno.test("loadPrompts() loads the example prompts of prompts/", async () => {
  const prompts = await loadPrompts(REPO_PROMPTS, OPTIONS);
  const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
  const review = byName.get("code_review");
  const commit = byName.get("commit_message");
  assert.ok(review && commit);
  assert.deepStrictEqual(review.arguments.map((argument) => argument.name), ["language", "focus"]);
  assert.deepStrictEqual(review.arguments.map((argument) => argument.required), [true, undefined]);
  assert.ok(Array.isArray(review.completers.get("language")));
  const text = await textOf(review, { language: "Rust" });
  assert.match(text, /paste some Rust code/);
  assert.doesNotMatch(text, /\{\{/);
  const { messages } = await get(commit, { summary: "Fix the off-by-one in paging" });
  assert.deepStrictEqual(messages.map((message) => message.role), ["user", "assistant"]);
  assert.match(JSON.stringify(messages[0]), /Fix the off-by-one in paging/);
});

Deno.test("loadPrompts() loads the conformance fixture's prompts as the suite expects them", async () => {
  const prompts = await loadPrompts(FIXTURE_PROMPTS, OPTIONS);
  assert.deepStrictEqual(prompts.map((prompt) => prompt.name), [
    "test_input_required_result_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_simple_prompt",
  ]);
  const [, withArguments, embedded, image, simple] = prompts;
  for (const prompt of prompts) assert.ok(typeof prompt.listing.description === "string");
  assert.strictEqual(await textOf(simple), "This is a simple prompt for testing.");
  assert.deepStrictEqual(withArguments.listing.arguments, [
    { name: "arg1", description: "First test argument", required: true },
    { name: "arg2", description: "Second test argument", required: true },
  ]);
  assert.strictEqual(
    await textOf(withArguments, { arg1: "a", arg2: "b" }),
    "Prompt with arguments: arg1='a', arg2='b'",
  );
  assert.ok(withArguments.completers.has("arg1"));
  assert.deepStrictEqual((await get(embedded, { resourceUri: "test://x" })).messages, [
    {
      role: "user",
      content: {
        type: "resource",
        resource: {
          uri: "test://x",
          mimeType: "text/plain",
          text: "Embedded resource content for testing.",
        },
      },
    },
    {
      role: "user",
      content: { type: "text", text: "Please process the embedded resource above." },
    },
  ]);
  const imageMessages = (await get(image)).messages;
  assert.strictEqual(imageMessages.length, 2);
  assert.deepStrictEqual(imageMessages[0], {
    role: "user",
    content: {
      type: "image",
      data:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
      mimeType: "image/png",
    },
  });
  assert.deepStrictEqual(imageMessages[1], {
    role: "user",
    content: { type: "text", text: "Please analyze the image above." },
  });
});

Deno.test("loadPrompts() substitutes arguments into a Markdown prompt", async () => {
  const prompt = await onePrompt({
    "greet.md": `---
description: Greets someone
arguments:
  - name: who
    required: true
  - name: mood
  - name: tail_end-2
---
Hello {{who}}, you look {{ mood }} today ({{	who
}}).
A literal \\{{who}} and a lone }} stay; {{tail_end-2}}.
`,
  });
  assert.strictEqual(
    await textOf(prompt, { who: "Ada", mood: "happy", "tail_end-2": "end" }),
    "Hello Ada, you look happy today (Ada).\nA literal {{who}} and a lone }} stay; end.",
  );
  // A missing optional argument is the empty string; a placeholder may span a line break (a
  // formatter rewrapping the Markdown puts one there).
  assert.strictEqual(
    await textOf(prompt, { who: "Ada" }),
    "Hello Ada, you look  today (Ada).\nA literal {{who}} and a lone }} stay; .",
  );
  // A value is never scanned for placeholders.
  assert.strictEqual(
    await textOf(prompt, { who: "{{mood}}", mood: "\\{{who}}" }),
    "Hello {{mood}}, you look \\{{who}} today ({{mood}}).\nA literal {{who}} and a lone }} stay; .",
  );
  assert.strictEqual((await get(prompt, { who: "x" })).description, "Greets someone");
});

Deno.test("loadPrompts() takes a Markdown body without its leading blank lines and trailing space", async () => {
  const prompt = await onePrompt({
    "spaced.md":
      "\uFEFF---\r\ndescription: Spaced\r\n---\r\n\r\n  \r\n  Indented\r\n\r\nlast  \r\n\r\n",
  });
  assert.strictEqual(await textOf(prompt), "  Indented\n\nlast");
});

Deno.test("loadPrompts() lists a Markdown prompt with exactly its wire fields, frozen", async () => {
  const prompt = await onePrompt({
    "file_name.md": markdown(`name: renamed
title: A title
description: Described
arguments:
  - name: topic
    title: Topic
    description: What about
    required: true
  - name: extra
    required: false
complete:
  topic: [alpha, beta]
icons:
  - src: https://example.com/icon.png
    mimeType: image/png
_meta:
  example.com/owner: docs`),
  });
  assert.strictEqual(prompt.name, "renamed");
  assert.strictEqual(prompt.timeoutMs, undefined);
  assert.deepStrictEqual(prompt.listing, {
    name: "renamed",
    title: "A title",
    description: "Described",
    arguments: [
      { name: "topic", title: "Topic", description: "What about", required: true },
      { name: "extra", required: false },
    ],
    icons: [{ src: "https://example.com/icon.png", mimeType: "image/png" }],
    _meta: { "example.com/owner": "docs" },
  });
  assert.deepStrictEqual(Object.keys(prompt.listing), [
    "name",
    "title",
    "description",
    "arguments",
    "icons",
    "_meta",
  ]);
  assert.ok(Object.isFrozen(prompt.listing));
  assert.ok(Object.isFrozen(prompt.listing.arguments));
  assert.ok(Object.isFrozen((prompt.listing.arguments as object[])[0]));
  assert.ok(Object.isFrozen(prompt.listing.icons));
  assert.deepStrictEqual(prompt.arguments, prompt.listing.arguments);
  assert.deepStrictEqual([...prompt.completers], [["topic", ["alpha", "beta"]]]);
});

Deno.test("loadPrompts() omits arguments from the listing of a prompt that takes none", async () => {
  const prompt = await onePrompt({ "bare.md": markdown("description: Bare\narguments: []") });
  assert.deepStrictEqual(prompt.listing, { name: "bare", description: "Bare" });
  assert.deepStrictEqual(prompt.arguments, []);
  assert.strictEqual(prompt.completers.size, 0);
});

Deno.test("loadPrompts() substitutes a 1 MB value once, leaving placeholders in it alone", async () => {
  const prompt = await onePrompt({
    "big.md": markdown(
      "description: Big\narguments:\n  - name: x\n  - name: y",
      "<{{x}}|{{y}}|{{x}}>",
    ),
  });
  const value = "{{x}}\\{{y}}".repeat(100_000); // 1.1 MB, every bit of it placeholder-like
  const text = await textOf(prompt, { x: value, y: "y" });
  assert.strictEqual(text.length, 2 * value.length + 5);
  assert.strictEqual(text, `<${value}|y|${value}>`);
});

Deno.test("loadPrompts() refuses a placeholder naming an undeclared argument", async () => {
  await withPromptsDir({
    "one.md": markdown("description: One\narguments:\n  - name: a\n  - name: b", "{{a}}\n{{ c }}"),
    "two.md": markdown("description: Two", "{{x}} and\n\n{{y}} and {{x}}"),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load prompt "${dir}/one.md": the placeholder "{{ c }}" on line 8 names no ` +
      'declared argument: the arguments are "a", "b"',
      `Cannot load prompt "${dir}/two.md": the placeholders "{{x}}" on line 4, "{{y}}" on ` +
      'line 6, "{{x}}" on line 6 name no declared argument: the front matter declares no arguments',
    ]);
  });
});

Deno.test("loadPrompts() refuses a {{ that starts no placeholder", async () => {
  await withPromptsDir({
    "curly.md": markdown(
      "description: Curly\narguments:\n  - name: a",
      "{{a}}\nUse ${{ secrets.TOKEN }} here",
    ),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load prompt "${dir}/curly.md": the "{{" on line 7 starts no placeholder: write ` +
      '"{{name}}" with the name of an argument, or "\\{{" for a literal "{{"',
    ]);
  });
});

Deno.test("loadPrompts() reports every bad Markdown prompt at once, naming each file", async () => {
  await withPromptsDir({
    "a_no_front.md": "Just text\n",
    "b_no_description.md": markdown("title: Untitled"),
    "c_blank_description.md": markdown('description: "  "'),
    "d_unknown.md": markdown("description: D\ntags: [x]"),
    "e_yaml.md": markdown("description: E\narguments: [unclosed"),
    "f_empty_body.md": "---\ndescription: F\n---\n\n  \n",
    "g_unclosed.md": "---\ndescription: G\nHello\n",
    "h_empty_front.md": "---\n---\nHello\n",
    "i_list_front.md": markdown("- description: I"),
    "j_complete.md": markdown("description: J\ncomplete:\n  nope: [a]"),
    "k_argument_name.md": markdown("description: K\narguments:\n  - name: 1st"),
    "l_argument_twice.md": markdown("description: L\narguments:\n  - name: a\n  - name: a"),
    "m_argument_field.md": markdown("description: M\narguments:\n  - name: a\n    default: x"),
    "n_required.md": markdown("description: N\narguments:\n  - name: a\n    required: yes"),
    "o_duplicate_key.md": markdown("description: O\ndescription: P"),
    "p_nan.md": markdown("description: P\n_meta:\n  n: .nan"),
    "q_icons.md": markdown("description: Q\nicons:\n  - src: http://example.com/i.png"),
    "r complete values.md": markdown("description: R\narguments:\n  - name: a\ncomplete:\n  a: 3"),
    "s_name.md": markdown("description: S\nname: 42"),
  }, async (dir) => {
    const file = (name: string) => `Cannot load prompt "${dir}/${name}":`;
    assert.deepStrictEqual(await loadProblems(dir), [
      `${file("a_no_front.md")} a Markdown prompt needs front matter with a description: a ` +
      'first line "---", then "description: What the prompt is for", then a line "---"',
      `${file("b_no_description.md")} description must be a non-empty string`,
      `${file("c_blank_description.md")} description must be a non-empty string`,
      `${file("d_unknown.md")} unknown field "tags" (a prompt may have ${MARKDOWN_FIELDS})`,
      `${
        file("e_yaml.md")
      } the front matter is not valid YAML: unexpected end of the stream within a flow collection (line 3)`,
      `${file("f_empty_body.md")} the prompt has no text after its front matter`,
      `${file("g_unclosed.md")} the front matter that opens on line 1 has no closing "---" line`,
      `${file("h_empty_front.md")} the front matter is empty: it needs at least "description"`,
      `${file("i_list_front.md")} the front matter must be a YAML mapping of fields ` +
      "(description, arguments …)",
      `${file("j_complete.md")} complete names "nope", which is not one of the prompt's arguments`,
      `${file("k_argument_name.md")} argument 0 has an invalid name "1st": use letters, ` +
      'digits, "_" or "-", starting with a letter or "_"',
      `${file("l_argument_twice.md")} the argument "a" is declared twice`,
      `${file("m_argument_field.md")} argument 0 has an unknown field "default": an ` +
      'argument may have "name", "title", "description", "required"',
      `${file("n_required.md")} "required" of argument "a" must be true or false`,
      `${
        file("o_duplicate_key.md")
      } the front matter is not valid YAML: duplicated mapping key (line 3)`,
      `${file("p_nan.md")} _meta cannot be sent as JSON unchanged: at "/n": NaN would ` +
      "arrive as null",
      `${file("q_icons.md")} icons are invalid: at "/0/src": does not match its "pattern"`,
      `${file("r complete values.md")} the name "r complete values" is invalid: ${NAME_RULE}`,
      `${file("s_name.md")} name must be a string`,
    ]);
  });
});

Deno.test("loadPrompts() serves each form a module's get may return", async () => {
  await withPromptsDir({
    "a_string.ts": moduleSource('"Say hi to " + args.who', 'arguments: [{ name: "who" }],'),
    "b_array.ts": moduleSource(`[
    { role: "user", content: "Question" },
    { role: "assistant", content: { type: "text", text: "Answer", annotations: { priority: 1 } } },
  ]`),
    "c_object.ts": moduleSource(
      '({ description: "Made now", messages: [{ role: "user", content: "x" }] })',
    ),
    "d_object_plain.ts": moduleSource(
      '({ messages: [{ role: "user", content: ctx.promptName }] })',
    ),
    "e_async.ts": moduleSource('Promise.resolve("later")'),
    "f_json.ts": moduleSource(
      '[{ role: "user", content: { type: "text", text: "t", _meta: { when: new Date(0), gone: undefined } } }]',
    ),
  }, async (dir) => {
    const [aString, bArray, cObject, dPlain, eAsync, fJson] = await loadPrompts(dir, OPTIONS);
    const user = (text: string) => ({ role: "user", content: { type: "text", text } });
    assert.deepStrictEqual(await get(aString, { who: "Ada" }), {
      description: "A test prompt",
      messages: [user("Say hi to Ada")],
    });
    assert.deepStrictEqual(await get(bArray), {
      description: "A test prompt",
      messages: [
        user("Question"),
        {
          role: "assistant",
          content: { type: "text", text: "Answer", annotations: { priority: 1 } },
        },
      ],
    });
    assert.deepStrictEqual(await get(cObject), { description: "Made now", messages: [user("x")] });
    assert.deepStrictEqual(await get(dPlain), {
      description: "A test prompt",
      messages: [user("d_object_plain")],
    });
    assert.deepStrictEqual(await get(eAsync), {
      description: "A test prompt",
      messages: [user("later")],
    });
    // Values pass through JSON once: a Date becomes its string, undefined vanishes.
    assert.deepStrictEqual((await get(fJson)).messages, [{
      role: "user",
      content: { type: "text", text: "t", _meta: { when: "1970-01-01T00:00:00.000Z" } },
    }]);
  });
});

Deno.test("loadPrompts() gives a module prompt's get rejections that name the prompt", async () => {
  await withPromptsDir({
    "empty.ts": moduleSource("[]"),
    "empty_object.ts": moduleSource("({ messages: [] })"),
    "bad_block.ts": moduleSource('[{ role: "user", content: { type: "image", data: "x" } }]'),
    "bad_role.ts": moduleSource('[{ role: "system", content: "x" }]'),
    "bad_type.ts": moduleSource('[{ role: "user", content: { type: "video", data: "x" } }]'),
    "extra_field.ts": moduleSource('[{ role: "user", content: "x", name: "bob" }]'),
    "extra_result.ts": moduleSource('({ messages: [{ role: "user", content: "x" }], meta: 1 })'),
    "bad_description.ts": moduleSource(
      '({ description: 1, messages: [{ role: "user", content: "x" }] })',
    ),
    "number.ts": moduleSource("42"),
    "nothing.ts": moduleSource("undefined"),
    "bigint.ts": moduleSource("[{ role: 'user', content: { type: 'text', text: 1n } }]"),
    "not_message.ts": moduleSource('["hello"]'),
    "messages_not_list.ts": moduleSource('({ messages: "hello" })'),
    "throws.ts": moduleSource('(() => { throw new Error("boom"); })()'),
  }, async (dir) => {
    const prompts = new Map(
      (await loadPrompts(dir, OPTIONS)).map((prompt) => [prompt.name, prompt]),
    );
    const rejection = async (name: string) => {
      const prompt = prompts.get(name);
      assert.ok(prompt);
      return await get(prompt).then(
        () => assert.fail(`${name} resolved`),
        (error) => (error as Error).message,
      );
    };
    const shape = "a string, a list of messages or { description, messages }";
    assert.strictEqual(await rejection("empty"), 'Prompt "empty" returned no messages');
    assert.strictEqual(
      await rejection("empty_object"),
      'Prompt "empty_object" returned no messages',
    );
    assert.strictEqual(
      await rejection("bad_block"),
      'Prompt "bad_block" returned an invalid message 0: at "/content": missing ' +
        'required property "mimeType"',
    );
    assert.match(
      await rejection("bad_role"),
      /^Prompt "bad_role" returned an invalid message 0: at "\/role"/,
    );
    assert.match(
      await rejection("bad_type"),
      /^Prompt "bad_type" returned an invalid message 0: at "\/content\/type"/,
    );
    assert.strictEqual(
      await rejection("extra_field"),
      'Prompt "extra_field" returned message 0 with an unknown field "name": a message has ' +
        '"role" and "content"',
    );
    assert.strictEqual(
      await rejection("extra_result"),
      'Prompt "extra_result" returned an unknown field "meta": a result may have ' +
        '"description" and "messages"',
    );
    assert.strictEqual(
      await rejection("bad_description"),
      'Prompt "bad_description" returned a description that is not a string',
    );
    assert.strictEqual(
      await rejection("number"),
      `Prompt "number" returned a number, not ${shape}`,
    );
    assert.strictEqual(
      await rejection("nothing"),
      `Prompt "nothing" returned undefined, not ${shape}`,
    );
    assert.strictEqual(
      await rejection("bigint"),
      'Prompt "bigint" returned a value that is not JSON: Do not know how to serialize a BigInt',
    );
    assert.strictEqual(
      await rejection("not_message"),
      'Prompt "not_message" returned a message 0 that is not an object ({ role, content })',
    );
    assert.strictEqual(
      await rejection("messages_not_list"),
      'Prompt "messages_not_list" returned messages that are not a list',
    );
    assert.strictEqual(await rejection("throws"), "boom");
  });
});

Deno.test("loadPrompts() checks a prompt module's fields strictly", async () => {
  await withPromptsDir({
    "a_unknown.ts": moduleSource('""', "handler: () => 1,"),
    "b_no_description.ts": 'export default { get: () => "x" };\n',
    "c_no_get.ts": 'export default { description: "C" };\n',
    "d_timeout.ts": moduleSource('""', "timeoutMs: 0,"),
    "e_timeout_big.ts": moduleSource('""', "timeoutMs: 2147483648,"),
    "f_complete.ts": moduleSource('""', 'complete: { who: ["a"] },'),
    "g_complete_value.ts": moduleSource(
      '""',
      'arguments: [{ name: "who" }], complete: { who: "a" },',
    ),
    "h_meta_date.ts": moduleSource('""', "_meta: { at: new Date(0) },"),
    "i_meta_array.ts": moduleSource('""', "_meta: [],"),
    "j_not_object.ts": 'export default "prompt";\n',
    "k_import.ts": 'import "./missing.ts";\nexport default {};\n',
    "l_title.ts": moduleSource('""', "title: 1,"),
    "m_arguments.ts": moduleSource('""', 'arguments: { who: "x" },'),
    "n_argument_title.ts": moduleSource('""', 'arguments: [{ name: "who", title: 1 }],'),
    "o_icons_bigint.ts": moduleSource(
      '""',
      'icons: [{ src: "https://x.example/i.png", size: 1n }],',
    ),
  }, async (dir) => {
    const file = (name: string) => `Cannot load prompt "${dir}/${name}":`;
    const problems = await loadProblems(dir);
    assert.match(
      problems[10],
      /^Cannot load prompt ".*k_import.ts": the module failed to import: /,
    );
    assert.deepStrictEqual(problems.toSpliced(10, 1), [
      `${file("a_unknown.ts")} unknown field "handler" (a prompt may have ${MODULE_FIELDS})`,
      `${file("b_no_description.ts")} description must be a non-empty string`,
      `${file("c_no_get.ts")} get must be a function`,
      `${file("d_timeout.ts")} timeoutMs must be an integer from 1 to 2147483647 (milliseconds)`,
      `${
        file("e_timeout_big.ts")
      } timeoutMs must be an integer from 1 to 2147483647 (milliseconds)`,
      `${file("f_complete.ts")} complete names "who", which is not one of the prompt's arguments`,
      `${file("g_complete_value.ts")} complete for "who" must be a list of strings or a function`,
      `${file("h_meta_date.ts")} _meta cannot be sent as JSON unchanged: at "/at": a Date would ` +
      "arrive as a string",
      `${file("i_meta_array.ts")} _meta must be an object`,
      `${file("j_not_object.ts")} the module must default-export a prompt object ` +
      "({ description, arguments, get })",
      `${file("l_title.ts")} title must be a string`,
      `${
        file("m_arguments.ts")
      } arguments must be a list of { name, title, description, required }`,
      `${file("n_argument_title.ts")} the title of argument "who" must be a string`,
      `${
        file("o_icons_bigint.ts")
      } icons cannot be sent as JSON: Do not know how to serialize a BigInt`,
    ]);
  });
});

Deno.test("loadPrompts() keeps a module's timeoutMs and its completers as given", async () => {
  const complete = (value: string) => [value.toUpperCase()];
  const prompt = await onePrompt({
    "timed.ts": `const byFunction = ${complete.toString()};
export const seen = byFunction;
export default {
  description: "Timed",
  timeoutMs: 2147483647,
  arguments: [{ name: "a", required: true }, { name: "b" }],
  complete: { a: ["x", "y"], b: byFunction },
  get: () => "ok",
};
`,
  });
  assert.strictEqual(prompt.timeoutMs, 2147483647);
  assert.deepStrictEqual(prompt.completers.get("a"), ["x", "y"]);
  const byFunction = prompt.completers.get("b");
  assert.ok(typeof byFunction === "function");
  assert.deepStrictEqual(
    await byFunction("ab", { arguments: {}, signal: new AbortController().signal }),
    ["AB"],
  );
});

Deno.test("loadPrompts() refuses two prompts with one name, naming both files", async () => {
  await withPromptsDir({
    "a.md": markdown("description: A"),
    "a.ts": moduleSource('"x"'),
    "b.md": markdown("description: B\nname: c"),
    "c.ts": moduleSource('"x"'),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load prompt "${dir}/a.ts": the name "a" is already used by "${dir}/a.md"`,
      `Cannot load prompt "${dir}/c.ts": the name "c" is already used by "${dir}/b.md"`,
    ]);
  });
});

Deno.test("loadPrompts() reads only .md and module files at the top, sorted by name", async () => {
  await withPromptsDir({
    "zeta.md": markdown("description: Z"),
    "alpha.mjs": moduleSource('"x"'),
    "beta.js": moduleSource('"x"'),
    "gamma.mts": moduleSource('"x"', 'name: "Gamma",'),
    "_helper.ts": "export default 1;\n",
    ".hidden.md": "not a prompt",
    "notes.txt": "not a prompt",
    "draft.markdown": "not a prompt",
    "sub": null,
    "sub/inner.md": "not a prompt",
  }, async (dir) => {
    const prompts = await loadPrompts(dir, OPTIONS);
    assert.deepStrictEqual(prompts.map((prompt) => prompt.name), [
      "Gamma",
      "alpha",
      "beta",
      "zeta",
    ]);
  });
});

Deno.test("loadPrompts() refuses a symlink to a file outside the directory unless allowed", async () => {
  const outside = await Deno.makeTempDir({ prefix: "toolshed_prompts_outside_" });
  try {
    await Deno.writeTextFile(`${outside}/shared.md`, markdown("description: Shared"));
    await withPromptsDir({ "inside.md": markdown("description: Inside") }, async (dir) => {
      await Deno.symlink(`${outside}/shared.md`, `${dir}/shared.md`);
      await Deno.symlink(`${dir}/inside.md`, `${dir}/alias.md`);
      const real = await Deno.realPath(`${outside}/shared.md`);
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load prompt "${dir}/shared.md": "${dir}/shared.md" is a symlink to "${real}", ` +
        "outside the prompts directory (--allow-outside-symlinks allows it)",
      ]);
      const allowed = await loadPrompts(dir, { ...OPTIONS, allowOutsideSymlinks: true });
      assert.deepStrictEqual(allowed.map((prompt) => prompt.name), ["alias", "inside", "shared"]);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("loadPrompts() names a directory it cannot read", async () => {
  await withPromptsDir({}, async (dir) => {
    assert.deepStrictEqual(
      (await loadProblems(`${dir}/missing`)).map((problem) => problem.split(": ")[0]),
      [`Cannot read the prompts directory "${dir}/missing"`],
    );
  });
});

Deno.test("argumentProblem() refuses missing required, unknown and non-string arguments", async () => {
  const prompt = await onePrompt({
    "p.md": markdown(
      "description: P\narguments:\n  - name: a\n    required: true\n  - name: b\n    required: true\n  - name: c",
      "{{a}}{{b}}{{c}}",
    ),
  });
  assert.strictEqual(argumentProblem(prompt, { a: "1", b: "2" }), undefined);
  assert.strictEqual(argumentProblem(prompt, { a: "1", b: "2", c: "" }), undefined);
  assert.strictEqual(
    argumentProblem(prompt, { a: "1" }),
    'missing required argument "b" for prompt "p"',
  );
  assert.strictEqual(
    argumentProblem(prompt, undefined),
    'missing required arguments "a", "b" for prompt "p"',
  );
  assert.strictEqual(
    argumentProblem(prompt, { a: "1", b: "2", d: "4" }),
    'prompt "p" takes no argument "d"',
  );
  assert.strictEqual(argumentProblem(prompt, { a: 1, b: "2" }), 'argument "a" must be a string');
  assert.strictEqual(argumentProblem(prompt, ["a"]), "arguments must be an object");
  assert.strictEqual(argumentProblem(prompt, null), "arguments must be an object");
});
