// Resource discovery and reading: files served as they are, modules defining resources and
// templates, template matching, and the exact start-up message for each bad entry. Every
// test writes its files into a fresh temporary directory (a fresh module URL, so the module
// cache never hides a change) and removes it afterwards.
import assert from "node:assert/strict";
import {
  type LoadedResources,
  loadResources,
  MAX_RESOURCE_FILES,
  type ResourceLoadOptions,
} from "../lib/discovery/resources_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import type { Resource, ResourceTemplate } from "../lib/primitives/resources.ts";
import type { ResourceContext } from "../lib/primitives/types.ts";
import { MAX_LIST_SEPARATORS, parseUriTemplate } from "../lib/primitives/uri_template.ts";
import { type Recorder, recorder } from "./_diagnostics.ts";

const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const PNG = Uint8Array.fromBase64(PNG_BASE64);
const NAME_RULE = 'use 1 to 128 letters, digits, "_", "-" or "."';

/** Writes `files` (relative path -> text or bytes) into a temporary directory. */
async function withDir(
  files: Record<string, string | Uint8Array>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_resources_" });
  try {
    for (const [path, content] of Object.entries(files)) {
      const target = `${dir}/${path}`;
      await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(target, content);
      else await Deno.writeFile(target, content);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function options(given: Partial<ResourceLoadOptions> = {}): ResourceLoadOptions {
  return {
    maxResourceBytes: 1024 * 1024,
    allowOutsideSymlinks: false,
    diagnostics: recorder(),
    ...given,
  };
}

/** Loads `dir`, which must fail; returns the problems after checking the error's shape. */
async function loadProblems(
  dir: string,
  given: Partial<ResourceLoadOptions> = {},
): Promise<readonly string[]> {
  let loaded: LoadedResources | undefined;
  try {
    loaded = await loadResources(dir, options(given));
  } catch (error) {
    assert.ok(error instanceof DirectoryLoadError, `expected a DirectoryLoadError: ${error}`);
    assert.strictEqual(error.message, error.problems.join("\n"));
    return error.problems;
  }
  assert.fail(`loadResources() succeeded with ${loaded.resources.map((r) => r.uri).join(", ")}`);
}

function ctx(uri: string): ResourceContext {
  return {
    uri,
    signal: new AbortController().signal,
    requestId: 1,
    protocolVersion: "2026-07-28",
    clientInfo: undefined,
    clientCapabilities: {},
    progress() {},
    log() {},
    request: () => Promise.reject(new Error("no way back")),
    closeStream: () => false,
  };
}

function only(loaded: LoadedResources, uri: string): Resource {
  const found = loaded.resources.find((resource) => resource.uri === uri);
  assert.ok(found, `no resource "${uri}" among ${loaded.resources.map((r) => r.uri).join(", ")}`);
  return found;
}

function template(loaded: LoadedResources, name: string): ResourceTemplate {
  const found = loaded.templates.find((item) => item.name === name);
  assert.ok(found, `no template "${name}"`);
  return found;
}

/** A module source whose default export is `body` (source text of an object literal). */
function module(body: string): string {
  return `export default ${body};\n`;
}

// Files

Deno.test("loadResources() lists a Markdown file as text with its size", async () => {
  const text = "# Guide\n\nÜber alles: ünïcödé.\n";
  await withDir({ "guide.md": text }, async (dir) => {
    const loaded = await loadResources(dir, options());
    const info = await Deno.stat(`${dir}/guide.md`);
    const resource = only(loaded, "toolshed:///guide.md");
    assert.deepStrictEqual(resource.listing, {
      uri: "toolshed:///guide.md",
      name: "guide.md",
      mimeType: "text/markdown",
      size: new TextEncoder().encode(text).length,
      annotations: { lastModified: info.mtime!.toISOString() },
    });
    assert.ok(Object.isFrozen(resource.listing));
    assert.strictEqual(resource.timeoutMs, undefined);
    assert.deepStrictEqual(await resource.read(ctx(resource.uri)), [
      { uri: "toolshed:///guide.md", mimeType: "text/markdown", text },
    ]);
  });
});

Deno.test("loadResources() reads PNG bytes as a base64 blob", async () => {
  await withDir({ "logo.png": PNG }, async (dir) => {
    const resource = only(await loadResources(dir, options()), "toolshed:///logo.png");
    assert.strictEqual(resource.listing.mimeType, "image/png");
    assert.strictEqual(resource.listing.size, PNG.length);
    assert.deepStrictEqual(await resource.read(ctx(resource.uri)), [
      { uri: "toolshed:///logo.png", mimeType: "image/png", blob: PNG_BASE64 },
    ]);
  });
});

Deno.test("loadResources() reads a file of unknown type as text/plain or application/octet-stream by its bytes", async () => {
  const binary = new Uint8Array([0x41, 0x00, 0x42, 0xff]);
  await withDir(
    { "notes.zzz": "plain words\n", "data.zzz": binary, "Makefile": "all:\n" },
    async (dir) => {
      const loaded = await loadResources(dir, options());
      const text = only(loaded, "toolshed:///notes.zzz");
      assert.strictEqual(text.listing.mimeType, undefined);
      assert.deepStrictEqual(await text.read(ctx(text.uri)), [
        { uri: text.uri, mimeType: "text/plain", text: "plain words\n" },
      ]);
      const blob = only(loaded, "toolshed:///data.zzz");
      assert.deepStrictEqual(await blob.read(ctx(blob.uri)), [
        { uri: blob.uri, mimeType: "application/octet-stream", blob: binary.toBase64() },
      ]);
      const bare = only(loaded, "toolshed:///Makefile");
      assert.deepStrictEqual(await bare.read(ctx(bare.uri)), [
        { uri: bare.uri, mimeType: "text/plain", text: "all:\n" },
      ]);
    },
  );
});

Deno.test("loadResources() sends a textual type whose bytes are not UTF-8 as a blob of that type", async () => {
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
  await withDir({ "old.txt": latin1, "data.json": '{"a":1}' }, async (dir) => {
    const loaded = await loadResources(dir, options());
    const old = only(loaded, "toolshed:///old.txt");
    assert.deepStrictEqual(await old.read(ctx(old.uri)), [
      { uri: old.uri, mimeType: "text/plain", blob: latin1.toBase64() },
    ]);
    const json = only(loaded, "toolshed:///data.json");
    assert.deepStrictEqual(await json.read(ctx(json.uri)), [
      { uri: json.uri, mimeType: "application/json", text: '{"a":1}' },
    ]);
  });
});

Deno.test("loadResources() walks subdirectories and percent-encodes each path segment", async () => {
  await withDir({
    "docs/My Guide.md": "guide",
    "docs/deep/a#b?c%.txt": "odd",
    "top.txt": "top",
  }, async (dir) => {
    const loaded = await loadResources(dir, options());
    assert.deepStrictEqual(
      loaded.resources.map((resource) => [resource.uri, resource.name]),
      [
        ["toolshed:///docs/My%20Guide.md", "docs/My Guide.md"],
        ["toolshed:///docs/deep/a%23b%3Fc%25.txt", "docs/deep/a#b?c%.txt"],
        ["toolshed:///top.txt", "top.txt"],
      ],
    );
    const odd = only(loaded, "toolshed:///docs/deep/a%23b%3Fc%25.txt");
    assert.deepStrictEqual(await odd.read(ctx(odd.uri)), [
      { uri: odd.uri, mimeType: "text/plain", text: "odd" },
    ]);
  });
});

Deno.test("loadResources() leaves out files and directories whose names start with _ or .", async () => {
  await withDir({
    "kept.md": "kept",
    "_draft.md": "draft",
    ".hidden": "hidden",
    "_private/secret.md": "secret",
    ".git/config": "config",
    "_helper.ts": "export const broken = ;",
    "sub/_also.md": "also",
    "sub/shown.md": "shown",
  }, async (dir) => {
    const loaded = await loadResources(dir, options());
    assert.deepStrictEqual(loaded.resources.map((resource) => resource.uri), [
      "toolshed:///kept.md",
      "toolshed:///sub/shown.md",
    ]);
  });
});

Deno.test("loadResources() reads a file afresh and answers undefined once it is gone", async () => {
  await withDir({ "live.txt": "first" }, async (dir) => {
    const resource = only(await loadResources(dir, options()), "toolshed:///live.txt");
    await Deno.writeTextFile(`${dir}/live.txt`, "second, longer than the first");
    assert.deepStrictEqual(await resource.read(ctx(resource.uri)), [
      { uri: resource.uri, mimeType: "text/plain", text: "second, longer than the first" },
    ]);
    await Deno.remove(`${dir}/live.txt`);
    assert.strictEqual(await resource.read(ctx(resource.uri)), undefined);
  });
});

Deno.test("loadResources() lists a file over the byte limit with one warning, and reading it fails", async () => {
  await withDir({ "big.bin": new Uint8Array(300), "small.txt": "ok" }, async (dir) => {
    const diagnostics = recorder();
    const loaded = await loadResources(dir, options({ maxResourceBytes: 200, diagnostics }));
    assert.deepStrictEqual(diagnostics.entries, [
      `toolshed: Resource "${dir}/big.bin" is 300 bytes, over the limit of 200 bytes ` +
      "(--max-resource-bytes): reading it will fail\n",
    ]);
    const big = only(loaded, "toolshed:///big.bin");
    assert.strictEqual(big.listing.size, 300);
    await assert.rejects(big.read(ctx(big.uri)), {
      message:
        'Resource "toolshed:///big.bin" is 300 bytes, over the limit of 200 bytes (--max-resource-bytes)',
    });
    // A file that grows past the limit after start-up is refused as well.
    const small = only(loaded, "toolshed:///small.txt");
    await Deno.writeFile(`${dir}/small.txt`, new Uint8Array(201).fill(0x61));
    await assert.rejects(small.read(ctx(small.uri)), {
      message:
        'Resource "toolshed:///small.txt" is 201 bytes, over the limit of 200 bytes (--max-resource-bytes)',
    });
    await Deno.writeFile(`${dir}/small.txt`, new Uint8Array(200).fill(0x61));
    const contents = await small.read(ctx(small.uri));
    assert.strictEqual((contents![0].text as string).length, 200);
  });
});

Deno.test("loadResources() refuses a symlink to outside the directory unless allowed", async () => {
  const outside = await Deno.makeTempFile({ prefix: "toolshed_outside_" });
  try {
    await Deno.writeTextFile(outside, "from outside");
    await withDir({ "inside.txt": "inside" }, async (dir) => {
      await Deno.symlink(outside, `${dir}/link.txt`);
      await Deno.symlink(`${dir}/inside.txt`, `${dir}/alias.txt`);
      const real = await Deno.realPath(outside);
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load resource "${dir}/link.txt": it is a symlink to "${real}", outside the ` +
        "resources directory (--allow-outside-symlinks allows it)",
      ]);
      const loaded = await loadResources(dir, options({ allowOutsideSymlinks: true }));
      const link = only(loaded, "toolshed:///link.txt");
      assert.deepStrictEqual(await link.read(ctx(link.uri)), [
        { uri: link.uri, mimeType: "text/plain", text: "from outside" },
      ]);
      // A symlink inside the directory is fine either way.
      await Deno.remove(`${dir}/link.txt`);
      const alias = only(await loadResources(dir, options()), "toolshed:///alias.txt");
      // Swapped for a symlink to outside after start-up: refused at read time too.
      await Deno.remove(`${dir}/alias.txt`);
      await Deno.symlink(outside, `${dir}/alias.txt`);
      await assert.rejects(alias.read(ctx(alias.uri)), {
        message: 'Resource "toolshed:///alias.txt" now leads outside the resources directory',
      });
    });
  } finally {
    await Deno.remove(outside);
  }
});

Deno.test("loadResources() refuses a directory of more than MAX_RESOURCE_FILES files", async () => {
  await withDir({}, async (dir) => {
    const empty = new Uint8Array(0);
    for (let i = 0; i <= MAX_RESOURCE_FILES; i++) {
      Deno.writeFileSync(`${dir}/f${i}.txt`, empty);
    }
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load the resources directory "${dir}": it holds more than ${MAX_RESOURCE_FILES} files`,
    ]);
    await Deno.remove(`${dir}/f0.txt`);
    const loaded = await loadResources(dir, options());
    assert.strictEqual(loaded.resources.length, MAX_RESOURCE_FILES);
  });
});

// Modules

Deno.test("loadResources() serves each form a module's read may return", async () => {
  await withDir({
    "string.ts": module(`{ uri: "t://string", mimeType: "text/plain", read: () => "hello" }`),
    "bytes.ts": module(
      `{ uri: "t://bytes", mimeType: "image/png", read: () => Uint8Array.fromBase64("${PNG_BASE64}") }`,
    ),
    "no_type.ts": module(`{ uri: "t://no-type", read: async () => "untyped" }`),
    "object.ts": module(
      `{ uri: "t://object", mimeType: "text/plain", read: () => ({ text: "obj", _meta: { at: new Date(0) } }) }`,
    ),
    "blob.ts": module(
      `{ uri: "t://blob", read: () => ({ blob: new Uint8Array([1, 2, 3]), mimeType: "application/x-thing" }) }`,
    ),
    "list.ts": module(`{
      uri: "t://list",
      mimeType: "text/markdown",
      read: () => [
        "# One",
        { uri: "t://list/part", text: "two", mimeType: "text/plain" },
        { blob: "AQID" },
      ],
    }`),
    "gone.ts": module(`{ uri: "t://gone", read: () => undefined }`),
    "null.ts": module(`{ uri: "t://null", read: () => null }`),
  }, async (dir) => {
    const loaded = await loadResources(dir, options());
    const read = (uri: string) => only(loaded, uri).read(ctx(uri));
    assert.deepStrictEqual(await read("t://string"), [
      { uri: "t://string", mimeType: "text/plain", text: "hello" },
    ]);
    assert.deepStrictEqual(await read("t://bytes"), [
      { uri: "t://bytes", mimeType: "image/png", blob: PNG_BASE64 },
    ]);
    assert.deepStrictEqual(await read("t://no-type"), [{ uri: "t://no-type", text: "untyped" }]);
    assert.deepStrictEqual(await read("t://object"), [
      {
        uri: "t://object",
        mimeType: "text/plain",
        text: "obj",
        _meta: { at: "1970-01-01T00:00:00.000Z" },
      },
    ]);
    assert.deepStrictEqual(await read("t://blob"), [
      { uri: "t://blob", mimeType: "application/x-thing", blob: "AQID" },
    ]);
    assert.deepStrictEqual(await read("t://list"), [
      { uri: "t://list", mimeType: "text/markdown", text: "# One" },
      { uri: "t://list/part", mimeType: "text/plain", text: "two" },
      { uri: "t://list", mimeType: "text/markdown", blob: "AQID" },
    ]);
    assert.strictEqual(await read("t://gone"), undefined);
    assert.strictEqual(await read("t://null"), undefined);
  });
});

Deno.test("loadResources() rejects a read that returns something that is not contents, naming the resource", async () => {
  await withDir({
    "empty.ts": module(`{ uri: "t://empty", read: () => [] }`),
    "number.ts": module(`{ uri: "t://number", read: () => 42 }`),
    "in_list.ts": module(`{ uri: "t://in-list", read: () => ["ok", { data: "x" }] }`),
    "unknown.ts": module(`{ uri: "t://unknown", read: () => ({ text: "x", extra: 1 }) }`),
    "both.ts": module(`{ uri: "t://both", read: () => ({ text: "x", blob: "AQID" }) }`),
    "bad_blob.ts": module(`{ uri: "t://bad-blob", read: () => ({ blob: "not base64!" }) }`),
    "bad_text.ts": module(`{ uri: "t://bad-text", read: () => ({ text: 7 }) }`),
    "big.ts": module(`{ uri: "t://big", read: () => ["é".repeat(60), new Uint8Array(81)] }`),
    "throws.ts": module(`{ uri: "t://throws", read: () => { throw new Error("disk on fire"); } }`),
  }, async (dir) => {
    const loaded = await loadResources(dir, options({ maxResourceBytes: 200 }));
    const rejects = (uri: string, message: string) =>
      assert.rejects(only(loaded, uri).read(ctx(uri)), { message });
    await rejects(
      "t://empty",
      'Resource "t://empty" returned an empty list: a resource that exists has at least one ' +
        "contents object (return undefined when there is nothing at this URI)",
    );
    await rejects(
      "t://number",
      'Resource "t://number" returned a number, not a string, a Uint8Array, a { text } or ' +
        "{ blob } object, or a list of them",
    );
    await rejects(
      "t://in-list",
      'Resource "t://in-list" returned an object at index 1, not a string, a Uint8Array, a ' +
        "{ text } or { blob } object, or a list of them",
    );
    await rejects(
      "t://unknown",
      'Resource "t://unknown" returned a contents object with unknown field "extra" (it may ' +
        "have uri, mimeType, text or blob, and _meta)",
    );
    await rejects(
      "t://both",
      'Resource "t://both" returned a contents object with both text and blob',
    );
    await rejects(
      "t://bad-blob",
      'Resource "t://bad-blob" returned a blob that is not padded base64',
    );
    await assert.rejects(only(loaded, "t://bad-text").read(ctx("t://bad-text")), (error: Error) => {
      assert.match(
        error.message,
        /^Resource "t:\/\/bad-text" returned an invalid contents object: /,
      );
      return true;
    });
    // 60 × "é" is 120 bytes of UTF-8, and 81 bytes of blob: 201.
    await rejects(
      "t://big",
      'Resource "t://big" is 201 bytes, over the limit of 200 bytes (--max-resource-bytes)',
    );
    await rejects("t://throws", "disk on fire");
  });
});

Deno.test("loadResources() calls a fixed resource's read with no params and the request's context", async () => {
  await withDir({
    "echo.ts": module(
      `{ uri: "t://echo", read: (params, ctx) => JSON.stringify({ params, uri: ctx.uri, id: ctx.requestId }) }`,
    ),
  }, async (dir) => {
    const resource = only(await loadResources(dir, options()), "t://echo");
    const [contents] = (await resource.read(ctx("t://echo")))!;
    assert.deepStrictEqual(JSON.parse(contents.text as string), {
      params: {},
      uri: "t://echo",
      id: 1,
    });
  });
});

Deno.test("loadResources() reports every problem of every bad module at once", async () => {
  await withDir({
    "bad.ts": module(`{
      uri: "t://bad",
      name: "not valid!",
      title: 3,
      description: ["x"],
      mimeType: 1,
      annotations: { priority: 2 },
      icons: [{ src: "ftp://x" }],
      _meta: { when: new Date(0) },
      timeoutMs: 0,
      size: -1,
      read: "nope",
      handler: () => "",
      complete: {},
    }`),
    "relative.ts": module(`{ uri: "just/a/path", read: () => "" }`),
    "spaced.ts": module(`{ uri: "t://a b", read: () => "" }`),
    "both.ts": module(`{ uri: "t://x", uriTemplate: "t://{x}", read: () => "" }`),
    "neither.ts": module(`{ name: "neither", read: () => "" }`),
    "not_object.ts": module(`"a string"`),
    "My File.ts": module(`{ uri: "t://my-file", read: () => "" }`),
    "broken.ts": "export default {",
    "nested/template.ts": module(`{ uriTemplate: "t://{x}", read: () => "", size: 1 }`),
  }, async (dir) => {
    const problems = await loadProblems(dir);
    const resourceFields =
      "uri, name, title, description, mimeType, annotations, icons, _meta, timeoutMs, scopes, read, size";
    const templateFields =
      "uriTemplate, name, title, description, mimeType, annotations, icons, _meta, timeoutMs, scopes, read, complete";
    const at = (file: string) => `Cannot load resource "${dir}/${file}": `;
    assert.deepStrictEqual(problems.filter((p) => !p.startsWith(at("broken.ts"))), [
      `${at("My File.ts")}the name "My File" (from the file name) is invalid: ${NAME_RULE}, or ` +
      "give the resource a name",
      `${at("bad.ts")}unknown fields "handler", "complete" (a resource may have ${resourceFields})`,
      `${at("bad.ts")}the name "not valid!" is invalid: ${NAME_RULE}`,
      `${at("bad.ts")}title must be a string`,
      `${at("bad.ts")}description must be a string`,
      `${at("bad.ts")}mimeType must be a string`,
      `${at("bad.ts")}annotations are invalid: at "/priority": must be at most 1 (got 2)`,
      `${at("bad.ts")}icons are invalid: at "/0/src": does not match its "pattern"`,
      `${at("bad.ts")}timeoutMs must be an integer from 1 to 2147483647 (milliseconds)`,
      `${at("bad.ts")}read must be a function`,
      `${at("bad.ts")}_meta cannot be sent as JSON unchanged: at "/when": a Date would arrive ` +
      "as a string",
      `${at("bad.ts")}size must be a non-negative integer (bytes)`,
      `${at("both.ts")}it has both "uri" and "uriTemplate": a fixed resource has "uri", a ` +
      'template "uriTemplate", never both',
      `${at("neither.ts")}it has neither "uri" (a fixed resource) nor "uriTemplate" (a resource ` +
      "template)",
      `${at("nested/template.ts")}unknown field "size" (a template may have ${templateFields})`,
      `${at("not_object.ts")}the module must default-export a resource object ({ uri, read }) ` +
      "or a resource template object ({ uriTemplate, read })",
      `${at("relative.ts")}uri "just/a/path" is not an absolute URI: it needs a scheme ` +
      '("notes:", "file:") and no whitespace',
      `${at("spaced.ts")}uri "t://a b" is not an absolute URI: it needs a scheme ("notes:", ` +
      '"file:") and no whitespace',
    ]);
    assert.ok(
      problems.some((p) => p.startsWith(`${at("broken.ts")}the module failed to import: `)),
      problems.join("\n"),
    );
  });
});

Deno.test("loadResources() refuses an invalid URI template, saying what is wrong", async () => {
  const cases: Record<string, [string, string]> = {
    "unclosed.ts": ["t://{id", 'the "{" at offset 4 is never closed'],
    "stray.ts": ["t://id}", 'it has a "}" without a "{" at offset 6'],
    "nested.ts": ["t://{a{b}}", 'the "{" at offset 4 is never closed'],
    "reserved.ts": [
      "t://{=x}",
      'the operator "=" in "{=x}" is reserved: use one of "+#./;?&" or none',
    ],
    "bad_name.ts": [
      "t://{a-b}",
      '"{a-b}" holds "a-b", which is not a variable name (letters, digits, "_" and inner "."), ' +
      'optionally followed by "*" or ":" and a length',
    ],
    "empty.ts": [
      "t://{}",
      '"{}" holds "", which is not a variable name (letters, digits, "_" and inner "."), ' +
      'optionally followed by "*" or ":" and a length',
    ],
    "length.ts": ["t://{a:0}", 'the length in "a:0" must be an integer from 1 to 9999'],
    "space.ts": [
      "t://a b/{x}",
      'it has " " at offset 5, which a URI template may not hold outside an expression',
    ],
  };
  const files = Object.fromEntries(
    Object.entries(cases).map(([file, [text]]) => [
      file,
      module(`{ uriTemplate: ${JSON.stringify(text)}, read: () => "" }`),
    ]),
  );
  await withDir(files, async (dir) => {
    const expected = Object.entries(cases).sort(([a], [b]) => a < b ? -1 : 1).map((
      [file, [text, reason]],
    ) =>
      `Cannot load resource "${dir}/${file}": uriTemplate ${
        JSON.stringify(text)
      } is not a valid URI template (RFC 6570): ${reason}`
    );
    assert.deepStrictEqual(await loadProblems(dir), expected);
  });
});

Deno.test("loadResources() takes completers for template variables and refuses other keys", async () => {
  await withDir({
    "good.ts": module(`{
      uriTemplate: "t://{owner}/{repo}",
      complete: { owner: ["ada", "alan"], repo: (value) => [value + "-x"] },
      read: () => "",
    }`),
  }, async (dir) => {
    const loaded = await loadResources(dir, options());
    const good = template(loaded, "good");
    assert.deepStrictEqual([...good.completers.keys()], ["owner", "repo"]);
    assert.deepStrictEqual(good.completers.get("owner"), ["ada", "alan"]);
    assert.strictEqual(typeof good.completers.get("repo"), "function");
  });
  await withDir({
    "bad.ts": module(`{
      uriTemplate: "t://{owner}/{repo}",
      complete: { owner: ["ada"], branch: ["main"], repo: [1] },
      read: () => "",
    }`),
    "worse.ts": module(`{ uriTemplate: "t://{a}", complete: ["a"], read: () => "" }`),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load resource "${dir}/bad.ts": complete has "branch", which is not a variable of ` +
      'the template ("owner", "repo")',
      `Cannot load resource "${dir}/bad.ts": complete's "repo" must be a list of strings or a ` +
      "function, not an array",
      `Cannot load resource "${dir}/worse.ts": complete must be an object of completers by ` +
      "variable name",
    ]);
  });
});

Deno.test("loadResources() refuses a URI used twice and a template name used twice, naming both files", async () => {
  await withDir({
    "a.ts": module(`{ uri: "t://same", read: () => "" }`),
    "b/c.ts": module(`{ uri: "t://same", read: () => "" }`),
    "file.md": "# hi",
    "z.ts": module(`{ uri: "toolshed:///file.md", read: () => "" }`),
    "t1.ts": module(`{ name: "tpl", uriTemplate: "t://{a}", read: () => "" }`),
    "t2.ts": module(`{ name: "tpl", uriTemplate: "u://{a}", read: () => "" }`),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load resource "${dir}/b/c.ts": the URI "t://same" is already used by "${dir}/a.ts"`,
      `Cannot load resource "${dir}/t2.ts": the template name "tpl" is already used by ` +
      `"${dir}/t1.ts"`,
      `Cannot load resource "${dir}/z.ts": the URI "toolshed:///file.md" is already used by ` +
      `"${dir}/file.md"`,
    ]);
  });
});

// Listings

Deno.test("loadResources() lists exactly the wire fields a module has, frozen and sorted", async () => {
  await withDir({
    "zeta.ts": module(`{
      uri: "a://zeta",
      title: "Zeta",
      description: "Last by name, first by URI",
      mimeType: "text/plain",
      size: 12,
      annotations: { audience: ["user"], priority: 0.5 },
      icons: [{ src: "https://example.com/z.png", mimeType: "image/png" }],
      _meta: { "example.com/k": 1 },
      timeoutMs: 500,
      read: () => "",
    }`),
    "alpha.ts": module(`{ uri: "b://alpha", read: () => "" }`),
    "beta.ts": module(`{
      uriTemplate: "c://{x}",
      description: "A template",
      mimeType: "application/json",
      complete: { x: ["1"] },
      read: () => "",
    }`),
    "aardvark.ts": module(`{ name: "zz", uriTemplate: "d://{y}", read: () => "" }`),
    "first.md": "x",
  }, async (dir) => {
    const loaded = await loadResources(dir, options());
    assert.deepStrictEqual(loaded.resources.map((resource) => resource.uri), [
      "a://zeta",
      "b://alpha",
      "toolshed:///first.md",
    ]);
    assert.deepStrictEqual(loaded.templates.map((item) => item.name), ["beta", "zz"]);
    const zeta = only(loaded, "a://zeta");
    assert.deepStrictEqual(zeta.listing, {
      uri: "a://zeta",
      name: "zeta",
      title: "Zeta",
      description: "Last by name, first by URI",
      mimeType: "text/plain",
      size: 12,
      annotations: { audience: ["user"], priority: 0.5 },
      icons: [{ src: "https://example.com/z.png", mimeType: "image/png" }],
      _meta: { "example.com/k": 1 },
    });
    assert.strictEqual(zeta.timeoutMs, 500);
    assert.ok(Object.isFrozen(zeta.listing));
    assert.ok(Object.isFrozen(zeta.listing.annotations));
    assert.deepStrictEqual(only(loaded, "b://alpha").listing, { uri: "b://alpha", name: "alpha" });
    assert.deepStrictEqual(template(loaded, "beta").listing, {
      uriTemplate: "c://{x}",
      name: "beta",
      description: "A template",
      mimeType: "application/json",
    });
    assert.strictEqual(template(loaded, "beta").timeoutMs, undefined);
    assert.deepStrictEqual(template(loaded, "zz").listing, { uriTemplate: "d://{y}", name: "zz" });
  });
});

// Templates

Deno.test("ResourceTemplate.match() gives the variables of a URI the template produces, and nothing else", async () => {
  await withDir({
    "data.ts": module(`{
      uriTemplate: "test://template/{id}/data",
      mimeType: "application/json",
      read: ({ id }, ctx) => JSON.stringify({ id, uri: ctx.uri }),
    }`),
  }, async (dir) => {
    const data = template(await loadResources(dir, options()), "data");
    assert.deepStrictEqual(await data.match("test://template/42/data"), { id: "42" });
    assert.deepStrictEqual(await data.match("test://template/a%20b/data"), { id: "a b" });
    assert.strictEqual(await data.match("test://template/42/data/extra"), undefined);
    assert.strictEqual(await data.match("test://template/42/dat"), undefined);
    assert.strictEqual(await data.match("test://other/42/data"), undefined);
    assert.strictEqual(await data.match("test://template/a/b/data"), undefined); // "/" is encoded
    assert.strictEqual(await data.match("test://template/a b/data"), undefined); // not encoded
    assert.strictEqual(await data.match("test://template/%zz/data"), undefined); // bad encoding
    assert.strictEqual(await data.match("test://template/a,b/data"), undefined); // a list
    assert.deepStrictEqual(
      await data.read({ id: "42" }, ctx("test://template/42/data")),
      [{
        uri: "test://template/42/data",
        mimeType: "application/json",
        text: '{"id":"42","uri":"test://template/42/data"}',
      }],
    );
  });
});

Deno.test("parseUriTemplate() matches exploded, reserved and query variables as RFC 6570 expands them", async () => {
  const files = parseUriTemplate("files://{/path*}");
  assert.deepStrictEqual(files.variables, ["path"]);
  assert.deepStrictEqual(await files.match("files:///a/b/c.txt"), { path: ["a", "b", "c.txt"] });
  assert.deepStrictEqual(await files.match("files:///one"), { path: ["one"] });
  assert.deepStrictEqual(await files.match("files:///a%20b/c"), { path: ["a b", "c"] });

  const reserved = parseUriTemplate("repo://{+path}");
  assert.deepStrictEqual(await reserved.match("repo://src/lib/a,b.ts"), { path: "src/lib/a,b.ts" });

  const search = parseUriTemplate("search://items{?q,lang}");
  assert.deepStrictEqual(search.variables, ["q", "lang"]);
  assert.deepStrictEqual(await search.match("search://items?q=deno&lang=en"), {
    q: "deno",
    lang: "en",
  });
  assert.deepStrictEqual(await search.match("search://items?q=deno"), { q: "deno" });
  assert.strictEqual(await search.match("search://items?lang=en&q=deno"), undefined); // order
  assert.strictEqual(await search.match("search://items?other=1"), undefined);

  const tags = parseUriTemplate("tags://x{?tag*}");
  assert.deepStrictEqual(await tags.match("tags://x?tag=a&tag=b"), { tag: ["a", "b"] });
  assert.strictEqual(await tags.match("tags://x?a=1&b=2"), undefined); // a map, not a list

  const prefix = parseUriTemplate("p://{word:3}");
  assert.deepStrictEqual(await prefix.match("p://abc"), { word: "abc" });
});

Deno.test("(await ResourceTemplate.match()) returns on hostile URIs of a megabyte", async () => {
  const megabyte = 1024 * 1024;
  const uris: Record<string, string> = {
    letters: `x://${"a".repeat(megabyte)}`,
    percents: `x://${"%".repeat(megabyte)}`,
    slashes: `x://${"/".repeat(megabyte)}`,
    commas: `x://${",".repeat(megabyte)}`,
    braces: `x://${"{".repeat(megabyte)}`,
    "bare query items": `x://?q=1${"&a".repeat(megabyte / 2)}`,
    "repeated query item": `x://?a=1${"&a=1".repeat(megabyte / 4)}`,
    "segments with =": `x://${"/a=1".repeat(megabyte / 4)}`,
  };
  const templates = [
    "x://{id}",
    "x://{?q*}",
    "x://{?a,b}",
    "x://{/path*}",
    "x://{+x}",
    "x://{a}{b}",
    "x://{;p*}",
    "x://{x,y,z}",
  ];
  const matched: string[] = [];
  for (const text of templates) {
    const parsed = parseUriTemplate(text);
    for (const [kind, uri] of Object.entries(uris)) {
      if ((await parsed.match(uri)) !== undefined) matched.push(`${text} ${kind}`);
    }
  }
  // Each call returned; only what expansion gives back exactly matched.
  assert.deepStrictEqual(matched, [
    "x://{id} letters",
    "x://{+x} letters",
    "x://{+x} slashes",
    "x://{+x} commas",
    "x://{+x} bare query items",
    "x://{+x} repeated query item",
    "x://{+x} segments with =",
    "x://{a}{b} letters",
    "x://{x,y,z} letters",
  ]);
});

Deno.test("(await ResourceTemplate.match()) bounds the list separators of a URI for a template with lists", async () => {
  const files = parseUriTemplate("files://{/path*}");
  const within = `files://${"/a".repeat(MAX_LIST_SEPARATORS - 2)}`;
  assert.strictEqual(
    ((await files.match(within))?.path as string[]).length,
    MAX_LIST_SEPARATORS - 2,
  );
  assert.strictEqual(await files.match(`files://${"/a".repeat(MAX_LIST_SEPARATORS)}`), undefined);
  // A template without lists has no such bound.
  const single = parseUriTemplate("one://{+x}");
  const long = `one://${"/a".repeat(MAX_LIST_SEPARATORS * 2)}`;
  assert.deepStrictEqual(await single.match(long), { x: long.slice("one://".length) });
});

// The example and the conformance fixture

Deno.test("loadResources() loads the example resources/ of the repository", async () => {
  const diagnostics: Recorder = recorder();
  const loaded = await loadResources(new URL("../resources/", import.meta.url), {
    maxResourceBytes: 1024 * 1024,
    allowOutsideSymlinks: false,
    diagnostics,
  });
  assert.deepStrictEqual(loaded.resources.map((resource) => resource.uri), [
    "toolshed:///guide.md",
    "toolshed:///logo.png",
  ]);
  const notes = template(loaded, "notes");
  assert.deepStrictEqual(notes.completers.get("topic"), ["tools", "resources", "prompts"]);
  const params = (await notes.match("notes://resources"))!;
  const [contents] = (await notes.read(params, ctx("notes://resources")))!;
  assert.match(contents.text as string, /resources\//);
  assert.strictEqual(
    await notes.read((await notes.match("notes://nothing"))!, ctx("notes://nothing")),
    undefined,
  );
  assert.deepStrictEqual(diagnostics.entries, []);
});

Deno.test("loadResources() loads the conformance fixture's resources as the suite expects them", async () => {
  const loaded = await loadResources(
    new URL("./conformance/fixture/resources/", import.meta.url),
    options(),
  );
  const read = async (uri: string) => (await only(loaded, uri).read(ctx(uri)))!;
  assert.deepStrictEqual(await read("test://static-text"), [{
    uri: "test://static-text",
    mimeType: "text/plain",
    text: "This is the content of the static text resource.",
  }]);
  assert.deepStrictEqual(await read("test://static-binary"), [
    { uri: "test://static-binary", mimeType: "image/png", blob: PNG_BASE64 },
  ]);
  assert.deepStrictEqual(await read("test://watched-resource"), [
    { uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" },
  ]);
  const data = template(loaded, "template");
  assert.strictEqual(data.uriTemplate, "test://template/{id}/data");
  const uri = "test://template/123/data";
  assert.deepStrictEqual(await data.read((await data.match(uri))!, ctx(uri)), [{
    uri,
    mimeType: "application/json",
    text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
  }]);
  for (const resource of loaded.resources) {
    assert.strictEqual(typeof resource.listing.description, "string", resource.uri);
  }
});
