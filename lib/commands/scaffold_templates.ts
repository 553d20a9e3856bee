// What `toolshed new` writes: for each kind (tool, prompt, resource, skill) and language, the files
// of one working primitive named NAME, ready to edit. A name is letters, digits, "_", "-"
// and "." only (the loader's rule, checked before this runs), so it is safe to put inside
// TypeScript, Bash, Python, JSON and YAML text as it is.

export type Kind = "tool" | "prompt" | "resource" | "skill" | "app";
export type Lang = "ts" | "bash" | "python" | "md" | "html";

/** One file to write, by its name in the kind's folder. */
export interface ScaffoldFile {
  readonly fileName: string;
  readonly text: string;
  /** Whether it needs the executable bit (a program with a sidecar). */
  readonly executable: boolean;
  /** The folder it goes in when not the kind's (an app's tool goes in tools/). */
  readonly folder?: string;
}

/** The folder of each kind under the server directory. */
export const FOLDERS: Readonly<Record<Kind, string>> = {
  tool: "tools",
  prompt: "prompts",
  resource: "resources",
  skill: "skills",
  app: "ui",
};

/** The languages each kind can be written in; the first is the default. */
export const LANGS: Readonly<Record<Kind, readonly Lang[]>> = {
  tool: ["ts", "bash", "python"],
  prompt: ["ts", "md"],
  resource: ["ts", "md"],
  skill: ["md"],
  app: ["html"],
};

/** What each language is, in a message. */
export const LANG_NAMES: Readonly<Record<Lang, string>> = {
  ts: "a TypeScript module",
  bash: "a Bash script with a JSON sidecar",
  python: "a Python script with a JSON sidecar",
  md: "a Markdown file",
  html: "an HTML page with a JSON sidecar and the tool it calls",
};

/** The files of `name` as `kind` in `lang` (one of LANGS[kind]). */
export function scaffoldFiles(kind: Kind, lang: Lang, name: string): ScaffoldFile[] {
  const file = (fileName: string, text: string, executable = false) => ({
    fileName,
    text,
    executable,
  });
  switch (`${kind}:${lang}`) {
    case "tool:ts":
      return [file(`${name}.ts`, toolModule(name))];
    case "tool:bash":
      return [file(`${name}.sh`, bashTool(name), true), file(`${name}.json`, sidecar(name))];
    case "tool:python":
      return [file(`${name}.py`, pythonTool(name), true), file(`${name}.json`, sidecar(name))];
    case "prompt:ts":
      return [file(`${name}.ts`, promptModule(name))];
    case "prompt:md":
      return [file(`${name}.md`, markdownPrompt(name))];
    case "resource:ts":
      return [file(`${name}.ts`, resourceModule(name))];
    case "resource:md":
      return [file(`${name}.md`, markdownResource(name))];
    case "skill:md":
      return [file(`${name}/SKILL.md`, skillManifest(name))];
    case "app:html":
      return [
        file(`${name}.html`, appPage(name)),
        file(`${name}.json`, appSidecar(name)),
        { ...file(`${name}.ts`, appTool(name)), folder: "tools" },
      ];
  }
  throw new Error(`No scaffold for a ${kind} in "${lang}"`);
}

/** The one argument every scaffolded tool takes, so that the first call is the same for all. */
const INPUT_SCHEMA = {
  type: "object",
  properties: { text: { type: "string", description: "The text to work on" } },
  required: ["text"],
  additionalProperties: false,
};

function toolDescription(name: string): string {
  return `Answers with the text it is given (${name}: say here what the tool does and when ` +
    `to use it, for the model)`;
}

function toolModule(name: string): string {
  return `// tools/${name}.ts: one tool, named after its file. Say what it does in the description
// (the model reads it to choose a tool), declare its arguments in inputSchema (they are
// checked before the handler runs), then write the handler: a string it returns is the result,
// an error it throws is a result the model reads as a failure.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: ${JSON.stringify(toolDescription(name))},
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The text to work on" } },
    required: ["text"],
    additionalProperties: false,
  },
  // What calling it does to the world, for clients (some platforms refuse a tool without it):
  // readOnlyHint when it changes nothing, else destructiveHint true or false.
  annotations: { readOnlyHint: true },
  // ctx.signal is aborted when the client cancels: pass it to fetch, timers and subprocesses.
  handler: ({ text }, _ctx) => \`${name} received: \${text}\`,
} satisfies ToolDefinition<{ text: string }>;
`;
}

function sidecar(name: string): string {
  return `${
    JSON.stringify(
      {
        description: toolDescription(name),
        inputSchema: INPUT_SCHEMA,
        annotations: { readOnlyHint: true },
      },
      null,
      2,
    )
  }\n`;
}

function bashTool(name: string): string {
  return `#!/usr/bin/env bash
# tools/${name}.sh: a tool in Bash, defined by ${name}.json beside it (description, inputSchema).
# toolshed runs it once per call with the arguments, already checked against the inputSchema,
# as one JSON object on stdin. What it prints on stdout is the result (text); a non-zero exit
# is a failure the model reads (what it printed, or stderr). stderr goes to the server's log.
set -euo pipefail

if ! command -v jq >/dev/null 2>&1; then
  echo "${name} needs jq, which is not installed where the toolshed server runs" \\
    "(https://jqlang.github.io/jq/download/)" >&2
  exit 1
fi

args=$(cat)
text=$(jq -r '.text' <<<"$args")
printf '%s\\n' "${name} received: $text"
`;
}

function pythonTool(name: string): string {
  return `#!/usr/bin/env python3
"""${name}: a tool in Python, defined by ${name}.json beside it (description, inputSchema).

toolshed runs it once per call with the arguments, already checked against the inputSchema,
as one JSON object on stdin. What it prints on stdout is the result (text; with an
outputSchema in the sidecar, print one JSON value instead). Exiting non-zero (sys.exit("why"))
is a failure the model reads. stderr goes to the server's log.
"""
import json
import sys


def main() -> None:
    args = json.loads(sys.stdin.buffer.read())
    text = args["text"]
    sys.stdout.buffer.write(f"${name} received: {text}\\n".encode())


main()
`;
}

function promptModule(name: string): string {
  return `// prompts/${name}.ts: a prompt written as code, named after its file. Clients list it with
// its arguments (always strings) and call get with the values the user gave; get returns a
// string (one user message) or a list of messages.
import type { PromptDefinition } from "@toolshed/toolshed";

export default {
  description: ${
    JSON.stringify(`Explains a topic simply (${name}: say here what the prompt is for)`)
  },
  arguments: [{ name: "topic", description: "What to explain", required: true }],
  get: ({ topic }) => [
    { role: "user", content: \`Explain \${topic} in a few short paragraphs, for a newcomer.\` },
  ],
} satisfies PromptDefinition<{ topic: string }>;
`;
}

function markdownPrompt(name: string): string {
  // A JSON string is a YAML scalar too, and quoting keeps the ": " inside from being a key.
  return `---
description: ${JSON.stringify(`Explains a topic simply (${name}: say here what the prompt is for)`)}
arguments:
  - name: topic
    description: What to explain
    required: true
---

Explain {{topic}} in a few short paragraphs, for a newcomer.
`;
}

function resourceModule(name: string): string {
  return `// resources/${name}.ts: a resource backed by code. read runs on every resources/read, so what it
// returns may change from one read to the next: a string (text), a Uint8Array (binary), or
// undefined for "not found". A template ({ uriTemplate: "${name}://{id}", read }) serves a
// family of URIs instead.
import type { ResourceDefinition } from "@toolshed/toolshed";

export default {
  uri: "toolshed:///${name}",
  description: ${JSON.stringify(`The time of reading (${name}: say here what the resource holds)`)},
  mimeType: "text/plain",
  read: () => \`${name} was read at \${new Date().toISOString()}\`,
} satisfies ResourceDefinition;
`;
}

function markdownResource(name: string): string {
  return `# ${name}

A file in resources/ is served as it is, read afresh on every request: this one as
toolshed:///${name}.md, text/markdown. Replace this text with what clients should read.
`;
}

function skillManifest(name: string): string {
  return `---
name: ${name}
description: ${
    JSON.stringify(
      `Says what ${name} does and when to use it (a host shows this to choose the skill)`,
    )
  }
---

# ${name}

Write here what the model should do, step by step. Put long references in files beside this
one (references/GUIDE.md) and link them, so a host loads them only when they are needed.
`;
}

/** Where the page loads the official MCP Apps client from (the sidecar's CSP lists it). */
const APP_SCRIPT_ORIGIN = "https://unpkg.com";

function appPage(name: string): string {
  return `<!doctype html>
<!-- ui/${name}.html: an MCP App, served as the resource ui://${name}. A host shows it in a
     sandboxed frame when the tool ${name} (tools/${name}.ts, ui: "${name}") is called; its
     button calls that tool back through the host and shows the answer. Its CSP and permissions
     are in ui/${name}.json. -->
<meta charset="utf-8">
<title>${name}</title>
<label>Text <input id="text" value="hello"></label>
<button id="call" disabled>Call ${name}</button>
<output id="answer"></output>
<script type="module">
  import { App } from "${APP_SCRIPT_ORIGIN}/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js";

  const app = new App({ name: ${JSON.stringify(name)}, version: "1.0.0" });
  // The result of the call that opened the app, when the host sends it.
  app.ontoolresult = (result) => show(result);
  const button = document.getElementById("call");
  button.addEventListener("click", async () => {
    const text = document.getElementById("text").value;
    show(await app.callServerTool({ name: ${JSON.stringify(name)}, arguments: { text } }));
  });
  function show(result) {
    document.getElementById("answer").textContent = result.content?.[0]?.text ?? "";
  }
  await app.connect();
  button.disabled = false;
</script>
`;
}

function appSidecar(name: string): string {
  return `${
    JSON.stringify(
      {
        title: name,
        description: `Shows what the tool ${name} answers (say here what the app is for)`,
        csp: { resourceDomains: [APP_SCRIPT_ORIGIN] },
        prefersBorder: true,
      },
      null,
      2,
    )
  }
`;
}

function appTool(name: string): string {
  return toolModule(name).replace(
    `// tools/${name}.ts: one tool, named after its file.`,
    `// tools/${name}.ts: one tool, shown in the app ui/${name}.html (its ui field).`,
  ).replace(
    "  annotations: { readOnlyHint: true },\n",
    `  annotations: { readOnlyHint: true },\n  // The app in ui/ a host shows the result in: ui/${name}.html, served as ui://${name}.\n  ui: ${
      JSON.stringify(name)
    },\n`,
  );
}
