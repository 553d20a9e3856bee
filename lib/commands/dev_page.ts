// The page `toolshed dev` serves at / (adr/0069, step 4): one HTML document with its style and
// script inline, which fetches nothing but the same origin's /mcp (the MCP endpoint, spoken as a
// 2026-07-28 client: stateless POSTs with the mirrored headers, answers read as JSON or as an SSE
// stream), /dev/state and /dev/events (the `checked` and `reloaded` events of lib/commands/dev.ts).
// It lists the tools, resources and templates, prompts, skills and apps; builds a form from each
// tool's inputSchema and each prompt's arguments; calls with a progress token and a log level,
// showing progress, logs, the time taken and the result's blocks; follows a call that became a
// task (the tasks extension) with tasks/get, with a button for tasks/cancel; renders a tool's app
// (`_meta.ui.resourceUri`) in a sandboxed iframe under the CSP its `_meta.ui.csp` names, with a
// host bridge of the MCP Apps protocol (ui/initialize, the tool's input and result, the app's
// tools/call relayed to /mcp); and keeps every JSON-RPC message sent and received, raw, in a
// traffic panel. What the server sends is untrusted: the script writes it with textContent and
// DOM properties only, never as HTML (the app's own page goes, as it must, into the sandboxed
// frame's srcdoc). A plain call that became a job (a client without tasks, adr/0070) is
// followed by making the call each answer names (toolshed_job, which waits), with Cancel job.

/** The dev page: one dependency-free HTML document (no network beyond its own origin). */
export function devPage(): string {
  return PAGE;
}

const STYLE = String.raw`
:root { color-scheme: light dark; --line: #8884; --muted: #888; --error: #c0392b; --warn: #b9770e;
  --ok: #1e8449; --accent: #2e6fd8; font: 14px/1.4 system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; display: grid; grid-template-rows: auto auto 1fr; height: 100vh; }
header { display: flex; gap: 1em; align-items: baseline; padding: .5em 1em;
  border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header h1 { font-size: 1.1em; margin: 0; }
.muted { color: var(--muted); }
#banner:empty, #findings-list:empty { display: none; }
#status { padding: .25em 1em; border-bottom: 1px solid var(--line); }
#banner { padding: .25em 1em; }
#banner.refused, .error-text { color: var(--error); }
main { display: grid; grid-template-columns: 16em 1fr 28em; min-height: 0; }
main > * { overflow: auto; min-height: 0; padding: .5em 1em; }
nav { border-right: 1px solid var(--line); }
nav h2, #traffic h2 { font-size: .9em; text-transform: uppercase; letter-spacing: .05em;
  color: var(--muted); margin: 1em 0 .25em; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav li button { all: unset; cursor: pointer; display: block; width: 100%; padding: .15em .3em;
  border-radius: 3px; overflow-wrap: anywhere; }
nav li button:hover, nav li.selected button { background: #8882; }
nav li .sub { display: block; font-size: .85em; color: var(--muted); }
#traffic { border-left: 1px solid var(--line); font-size: .85em; }
#traffic details { border-bottom: 1px solid var(--line); }
#traffic summary { cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.out summary::before { content: "\2192  "; color: var(--accent); }
.in summary::before { content: "\2190  "; color: var(--ok); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25em 0; padding: .4em;
  background: #8881; border-radius: 3px; }
form.fields { display: grid; gap: .6em; margin: 1em 0; max-width: 40em; }
form.fields label { display: grid; gap: .15em; }
form.fields .name { font-weight: 600; font-family: ui-monospace, monospace; }
form.fields .required::after { content: " *"; color: var(--error); }
form.fields .help { font-size: .85em; color: var(--muted); }
input, select, textarea, button { font: inherit; }
textarea { font-family: ui-monospace, monospace; }
textarea[data-kind="json"], textarea.answer, details textarea { min-height: 4em; }
.badges span { display: inline-block; padding: 0 .4em; margin: 0 .3em .3em 0; border-radius: 3px;
  background: #8882; font-size: .85em; }
.controls { display: flex; gap: 1em; align-items: center; flex-wrap: wrap; }
.run { margin-top: 1em; }
.run.is-error .outcome { color: var(--error); }
progress { width: 16em; }
ul.logs { font-family: ui-monospace, monospace; font-size: .85em; padding-left: 1.2em; }
ul.findings li.error { color: var(--error); }
ul.findings li.warning { color: var(--warn); }
iframe.app { width: 100%; min-height: 12em; border: 1px solid var(--line); border-radius: 3px; }
img.block { max-width: 100%; }
`;

const SCRIPT = String.raw`
"use strict";
const PROTOCOL = "2026-07-28";
const ENDPOINT = "/mcp";
const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT = "io.modelcontextprotocol/clientInfo";
const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
const UI_EXTENSION = "io.modelcontextprotocol/ui";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
const APP_MIME = "text/html;profile=mcp-app";
const APPS_PROTOCOL = "2026-01-26";
const CLIENT_INFO = { name: "toolshed-dev-page", version: "1.0.0" };
const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
// The body field Mcp-Name mirrors, by method (SEP-2243; the tasks extension's task id).
const NAME_FIELD = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri",
  "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" };
// Bounds: pages of one list, messages kept in the traffic panel, polls of one task, rounds of
// questions (input_required) in one call, and the shortest and longest wait between two polls.
const LIST_PAGES = 100;
const TRAFFIC_KEPT = 500;
const TASK_POLLS = 2000;
const INPUT_ROUNDS = 20;
const POLL_MIN_MS = 100;
const POLL_MAX_MS = 5000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

const state = { nextId: 0, nextToken: 0, capabilities: {}, server: null, tools: [], resources: [],
  templates: [], prompts: [], skills: [], selected: null, app: null, listing: null };

// ---- DOM helpers: server text only ever goes in as text nodes or properties.

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof node[key] !== "function" && key !== "list") node[key] = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (id) => document.getElementById(id);
const json = (value) => JSON.stringify(value, null, 2);
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function errorText(error) {
  if (error && error.rpc) {
    const { code, message, data } = error.rpc;
    return "JSON-RPC error " + code + ": " + message + (data === undefined ? "" : "\n" + json(data));
  }
  return error instanceof Error ? error.message : String(error);
}

// ---- The traffic panel: every message as it went over the wire.

function traffic(direction, channel, raw) {
  const list = $("traffic-list");
  let label = raw;
  try {
    const message = JSON.parse(raw);
    label = (message.method || ("id " + message.id + (message.error ? " error" : " result")));
  } catch {
    // not JSON: shown as it came
  }
  const entry = el("details", { class: direction },
    el("summary", { text: new Date().toISOString().slice(11, 23) + " " + channel + " " + label }),
    el("pre", { text: raw }));
  list.prepend(entry);
  while (list.childElementCount > TRAFFIC_KEPT) list.lastElementChild.remove();
}

// ---- MCP over HTTP, as a 2026-07-28 client.

/** A header value as SEP-2243 sends it: plain printable ASCII as is, else =?base64?…?= of UTF-8. */
function headerValue(value) {
  const text = String(value);
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(text) || text === "") return text;
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return "=?base64?" + btoa(binary) + "?=";
}

/**
 * What the page declares: apps, tasks when asked to follow one, and the questions a server may
 * ask (form elicitation, sampling, roots), which the person at the page answers by hand.
 */
function clientCapabilities(asTask) {
  const extensions = { [UI_EXTENSION]: { mimeTypes: [APP_MIME] } };
  if (asTask) extensions[TASKS_EXTENSION] = {};
  return { elicitation: { form: {} }, sampling: {}, roots: {}, extensions };
}

function rpcError(error) {
  const failure = new Error(error.message);
  failure.rpc = error;
  return failure;
}

/**
 * Sends one request and resolves with its result (rejects with its error). Notifications on the
 * answer's SSE stream go to options.onNotification. options: meta, headers, signal, asTask.
 */
async function rpc(method, params, options) {
  options = options || {};
  const id = ++state.nextId;
  const meta = Object.assign({
    [META_VERSION]: PROTOCOL,
    [META_CAPABILITIES]: clientCapabilities(options.asTask),
    [META_CLIENT]: CLIENT_INFO,
  }, options.meta);
  const body = JSON.stringify({ jsonrpc: "2.0", id, method,
    params: Object.assign({}, params, { _meta: meta }) });
  const headers = Object.assign({
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
    "mcp-method": method,
  }, options.headers);
  const field = NAME_FIELD[method];
  if (field !== undefined && typeof params[field] === "string") {
    headers["mcp-name"] = headerValue(params[field]);
  }
  traffic("out", "mcp", body);
  const response = await fetch(ENDPOINT, { method: "POST", headers, body, signal: options.signal });
  const type = (response.headers.get("content-type") || "").toLowerCase();
  let answer;
  const take = (raw) => {
    traffic("in", "mcp", raw);
    let message;
    try {
      message = JSON.parse(raw);
    } catch {
      throw new Error("The server sent a message that is not JSON: " + raw.slice(0, 200));
    }
    if (message.id === id && message.method === undefined) answer = message;
    else if (message.method !== undefined && options.onNotification) options.onNotification(message);
  };
  if (type.startsWith("text/event-stream")) {
    await readEvents(response.body, (event) => {
      if (event.data !== undefined) take(event.data);
    });
  } else {
    const raw = await response.text();
    if (raw.trim() === "") traffic("in", "mcp", "(HTTP " + response.status + ", no body)");
    else take(raw);
  }
  if (answer === undefined) {
    throw new Error("The server answered HTTP " + response.status + " without a response to " +
      method + " (id " + id + ")");
  }
  if (answer.error) throw rpcError(answer.error);
  return answer.result;
}

/** Reads a text/event-stream body to its end, calling onEvent with { event, data } for each. */
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const flush = (block) => {
    const event = { event: "message", data: undefined };
    const data = [];
    for (const line of block.split(/\r?\n|\r/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event.event = value;
    }
    if (data.length > 0) event.data = data.join("\n");
    onEvent(event);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const blocks = buffer.split(/\r?\n\r?\n|\r\r/);
    buffer = blocks.pop();
    for (const block of blocks) flush(block);
  }
  if (buffer.trim() !== "") flush(buffer);
}

/**
 * rpc, answering the server's questions (resultType "input_required") by asking the person in
 * "container" and sending the same request again with their answers and the requestState.
 */
async function callAsking(method, params, options, container) {
  let round = params;
  for (let rounds = 0; rounds < INPUT_ROUNDS; rounds++) {
    const result = await rpc(method, round, options);
    if (!isObject(result) || result.resultType !== "input_required") return result;
    const inputResponses = await askPerson(container, result.inputRequests, options.signal);
    round = Object.assign({}, params, { inputResponses });
    if (typeof result.requestState === "string") round.requestState = result.requestState;
  }
  throw new Error("The server still asked for input after " + INPUT_ROUNDS + " rounds; the page stops there");
}

/** What the answer box of a question holds at first, by its method. */
function answerTemplate(method) {
  switch (method) {
    case "sampling/createMessage":
      return { role: "assistant", content: { type: "text", text: "" }, model: "a person at the dev page",
        stopReason: "endTurn" };
    case "roots/list":
      return { roots: [] };
    case "elicitation/create":
      return { action: "accept" };
  }
  return {};
}

/**
 * Shows the questions of one input_required answer in "container" (a form for a form
 * elicitation, a JSON box for the rest) and resolves with the answers, by key, once sent.
 */
function askPerson(container, requests, signal) {
  return new Promise((resolve, reject) => {
    const readers = [];
    const parts = [el("p", { class: "asking", text: "The server asks (input_required):" })];
    for (const [key, request] of Object.entries(isObject(requests) ? requests : {})) {
      const method = isObject(request) ? request.method : undefined;
      const params = isObject(request) && isObject(request.params) ? request.params : {};
      const block = el("fieldset", { class: "question", "data-key": key },
        el("legend", { text: key + ": " + method }));
      if (method === "elicitation/create" && params.mode !== "url" && isObject(params.requestedSchema)) {
        const { form, values } = schemaForm(params.requestedSchema, "Content as JSON");
        const action = el("select", { class: "action" },
          ["accept", "decline", "cancel"].map((name) => el("option", { value: name, text: name })));
        block.append(el("p", { class: "message", text: String(params.message ?? "") }), form,
          el("label", {}, "Action ", action));
        readers.push([key, () => action.value === "accept"
          ? { action: "accept", content: values() }
          : { action: action.value }]);
      } else {
        const answer = el("textarea", { rows: 4, class: "answer", value: json(answerTemplate(method)) });
        block.append(el("pre", { text: json(request) }), answer);
        readers.push([key, () => {
          try {
            return JSON.parse(answer.value);
          } catch (error) {
            throw new Error("The answer to \"" + key + "\" is not valid JSON: " + error.message);
          }
        }]);
      }
      parts.push(block);
    }
    const problem = el("p", { class: "error-text" });
    const send = el("button", { type: "button", class: "send-answers", text: "Send the answers" });
    const stop = () => {
      cleanup();
      reject(new Error("Stopped before answering the server's questions"));
    };
    const cleanup = () => {
      if (signal) signal.removeEventListener("abort", stop);
      container.replaceChildren();
    };
    send.addEventListener("click", () => {
      try {
        const responses = {};
        for (const [key, read] of readers) responses[key] = read();
        cleanup();
        resolve(responses);
      } catch (error) {
        problem.textContent = error.message;
      }
    });
    if (signal) signal.addEventListener("abort", stop, { once: true });
    container.replaceChildren(...parts, send, problem);
  });
}

async function listAll(method, key) {
  const items = [];
  let cursor;
  for (let page = 0; page < LIST_PAGES; page++) {
    // As a client that declares tasks when the server offers them: the directory as it is,
    // without the job tool and with every outputSchema (adr/0070).
    const result = await rpc(method, cursor === undefined ? {} : { cursor }, { asTask: offersTasks() });
    items.push(...(Array.isArray(result[key]) ? result[key] : []));
    if (typeof result.nextCursor !== "string") return items;
    cursor = result.nextCursor;
  }
  throw new Error(method + " still had more after " + LIST_PAGES + " pages; the page stops there");
}

/** Whether the server offers the tasks extension (server/discover's capabilities). */
function offersTasks() {
  const extensions = isObject(state.capabilities) && isObject(state.capabilities.extensions)
    ? state.capabilities.extensions
    : {};
  return extensions[TASKS_EXTENSION] !== undefined;
}

// ---- Lists.

const SECTIONS = ["tools", "apps", "resources", "templates", "prompts", "skills"];

function appUri(tool) {
  const meta = tool._meta;
  if (!isObject(meta)) return undefined;
  if (isObject(meta.ui) && typeof meta.ui.resourceUri === "string") return meta.ui.resourceUri;
  return typeof meta["ui/resourceUri"] === "string" ? meta["ui/resourceUri"] : undefined;
}

function skillName(skill) {
  const front = isObject(skill.frontmatter) ? skill.frontmatter : {};
  return typeof front.name === "string" ? front.name : skill.uri;
}

function entriesOf(section) {
  switch (section) {
    case "tools":
      return state.tools.map((tool) => ({ key: tool.name, title: tool.title || tool.name,
        sub: tool.title ? tool.name : undefined, item: tool }));
    case "apps":
      return state.tools.filter((tool) => appUri(tool) !== undefined).map((tool) => ({
        key: tool.name, title: tool.title || tool.name, sub: appUri(tool), item: tool }));
    case "resources":
      return state.resources.map((resource) => ({ key: resource.uri,
        title: resource.title || resource.name || resource.uri, sub: resource.uri, item: resource }));
    case "templates":
      return state.templates.map((template) => ({ key: template.uriTemplate,
        title: template.title || template.name || template.uriTemplate, sub: template.uriTemplate,
        item: template }));
    case "prompts":
      return state.prompts.map((prompt) => ({ key: prompt.name, title: prompt.title || prompt.name,
        sub: prompt.title ? prompt.name : undefined, item: prompt }));
    case "skills":
      return state.skills.map((skill) => ({ key: skill.uri, title: skillName(skill), sub: skill.uri,
        item: skill }));
  }
  return [];
}

function renderLists(problems) {
  for (const section of SECTIONS) {
    const list = $("list-" + section);
    const entries = entriesOf(section);
    const kind = section === "apps" ? "tools" : section;
    list.replaceChildren(...entries.map((entry) => {
      const selected = state.selected && state.selected.kind === kind &&
        state.selected.key === entry.key;
      return el("li", { "data-key": entry.key, class: selected ? "selected" : undefined },
        el("button", {
          type: "button",
          title: typeof entry.item.description === "string" ? entry.item.description : undefined,
          onclick: () => select(kind, entry.key),
        },
          entry.title, entry.sub === undefined ? null : el("span", { class: "sub", text: entry.sub })));
    }));
    $("count-" + section).textContent = String(entries.length);
    if (problems[section]) list.append(el("li", { class: "error-text", text: problems[section] }));
  }
}

/** Lists again after a reload: once at a time, and once more if another reload came meanwhile. */
async function relist() {
  if (state.listing) {
    state.listing.again = true;
    return;
  }
  state.listing = { again: false };
  try {
    do {
      state.listing.again = false;
      await load();
    } while (state.listing.again);
  } finally {
    state.listing = null;
  }
}

/** Lists everything the server serves (again), and shows the selected item anew if it changed. */
async function load() {
  const problems = {};
  try {
    const discovered = await rpc("server/discover", {});
    state.capabilities = isObject(discovered.capabilities) ? discovered.capabilities : {};
    const info = isObject(discovered._meta) ? discovered._meta["io.modelcontextprotocol/serverInfo"] : null;
    state.server = isObject(info) ? info : null;
  } catch (error) {
    $("server").textContent = "server/discover failed: " + errorText(error);
    return;
  }
  const capabilities = state.capabilities;
  const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
  const fetches = [
    ["tools", capabilities.tools, () => listAll("tools/list", "tools")],
    ["resources", capabilities.resources, () => listAll("resources/list", "resources")],
    ["templates", capabilities.resources, () => listAll("resources/templates/list", "resourceTemplates")],
    ["prompts", capabilities.prompts, () => listAll("prompts/list", "prompts")],
    ["skills", extensions[SKILLS_EXTENSION], () => listAll("skills/list", "skills")],
  ];
  await Promise.all(fetches.map(async ([section, offered, list]) => {
    if (!offered) {
      state[section] = [];
      return;
    }
    try {
      state[section] = await list();
    } catch (error) {
      state[section] = [];
      problems[section] = errorText(error);
    }
  }));
  $("server").textContent = state.server
    ? (state.server.title || state.server.name) + " " + (state.server.version || "")
    : "";
  $("tasks-offered").textContent = extensions[TASKS_EXTENSION] ? "tasks extension offered" : "";
  renderLists(problems);
  if (state.selected) {
    const current = findItem(state.selected.kind, state.selected.key);
    if (current === undefined) {
      $("detail").replaceChildren(el("p", { class: "muted",
        text: state.selected.key + " is no longer served." }));
      state.selected = null;
    } else if (JSON.stringify(current) !== state.selected.json) {
      select(state.selected.kind, state.selected.key);
    }
  }
}

function findItem(kind, key) {
  const by = { tools: "name", prompts: "name", resources: "uri", templates: "uriTemplate", skills: "uri" };
  return state[kind].find((item) => item[by[kind]] === key);
}

function select(kind, key) {
  const item = findItem(kind, key);
  if (item === undefined) return;
  closeApp();
  state.selected = { kind, key, json: JSON.stringify(item) };
  for (const li of document.querySelectorAll("nav li")) {
    const list = li.parentElement.id.slice("list-".length);
    li.classList.toggle("selected", (list === kind || (list === "apps" && kind === "tools")) &&
      li.dataset.key === key);
  }
  const show = { tools: showTool, resources: showResource, templates: showTemplate,
    prompts: showPrompt, skills: showSkill }[kind];
  $("detail").replaceChildren(...show(item));
}

// ---- Forms from JSON Schema.

/** The field a property schema gets: text, number, integer, boolean, enum or JSON. */
function fieldKind(schema) {
  if (!isObject(schema)) return "json";
  if (Array.isArray(schema.enum) && schema.enum.length > 0 &&
    schema.enum.every((value) => ["string", "number", "boolean"].includes(typeof value))) return "enum";
  if (schema.const !== undefined) return "json";
  switch (schema.type) {
    case "string":
      return "text";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
  }
  return "json";
}

/**
 * A form for an object schema's properties. values() gives the arguments, leaving out empty
 * fields (the server's validation answers for a required one); it throws, naming the field, for
 * a number or JSON that does not parse.
 */
function schemaForm(schema, rawLabel) {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const required = new Set(isObject(schema) && Array.isArray(schema.required) ? schema.required : []);
  const readers = [];
  const form = el("form", { class: "fields", onsubmit: (event) => event.preventDefault() });
  for (const [name, property] of Object.entries(properties)) {
    const kind = fieldKind(property);
    const isRequired = required.has(name);
    const hasDefault = isObject(property) && property.default !== undefined;
    const help = [];
    if (isObject(property) && typeof property.description === "string") help.push(property.description);
    const type = isObject(property) ? (Array.isArray(property.type) ? property.type.join(" | ") : property.type) : undefined;
    help.push((kind === "json" ? "JSON" : kind) + (type && kind === "json" ? " (" + type + ")" : "") +
      (hasDefault ? "; default " + JSON.stringify(property.default) : ""));
    let input;
    let read;
    if (kind === "enum") {
      input = el("select", {},
        isRequired ? null : el("option", { value: "", text: "(not set)" }),
        property.enum.map((value, index) => el("option", { value: String(index),
          text: typeof value === "string" ? value : JSON.stringify(value) })));
      const start = hasDefault ? property.enum.indexOf(property.default) : -1;
      input.value = start === -1 ? (isRequired ? "0" : "") : String(start);
      read = () => input.value === "" ? undefined : property.enum[Number(input.value)];
    } else if (kind === "boolean" && isRequired) {
      input = el("input", { type: "checkbox", checked: property.default === true });
      read = () => input.checked;
    } else if (kind === "boolean") {
      input = el("select", {}, el("option", { value: "", text: "(not set)" }),
        el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }));
      input.value = hasDefault ? String(property.default === true) : "";
      read = () => input.value === "" ? undefined : input.value === "true";
    } else if (kind === "number" || kind === "integer") {
      input = el("input", { type: "number", step: kind === "integer" ? "1" : "any",
        value: hasDefault ? String(property.default) : "" });
      if (typeof property.minimum === "number") input.min = String(property.minimum);
      if (typeof property.maximum === "number") input.max = String(property.maximum);
      read = () => {
        const text = input.value.trim();
        if (text === "") return undefined;
        const number = Number(text);
        if (!Number.isFinite(number)) return readFailed(name, "\"" + text + "\" is not a number");
        return number;
      };
    } else if (kind === "text") {
      const long = typeof property.maxLength !== "number" || property.maxLength > 200;
      input = el(long && property.format === undefined ? "textarea" : "input",
        { value: hasDefault && typeof property.default === "string" ? property.default : "" });
      if (input.tagName === "TEXTAREA") input.rows = 1;
      read = () => input.value === "" ? undefined : input.value;
    } else {
      input = el("textarea", { rows: 3, placeholder: "JSON",
        value: hasDefault ? json(property.default) : "" });
      read = () => {
        const text = input.value.trim();
        if (text === "") return undefined;
        try {
          return JSON.parse(text);
        } catch (error) {
          return readFailed(name, "not valid JSON: " + error.message);
        }
      };
    }
    input.name = name;
    input.dataset.field = name;
    input.dataset.kind = kind;
    if (isRequired && input.type !== "checkbox") input.required = true;
    form.append(el("label", {},
      el("span", { class: "name" + (isRequired ? " required" : ""), text: name }),
      input,
      el("span", { class: "help", text: help.join(" · ") })));
    readers.push([name, read]);
  }
  if (readers.length === 0) form.append(el("p", { class: "muted", text: "No arguments." }));
  const raw = el("textarea", { rows: 4, placeholder: "{ } — when filled, sent as the arguments instead of the fields" });
  form.append(el("details", {}, el("summary", { text: rawLabel || "Arguments as JSON" }), raw));
  return {
    form,
    values() {
      if (raw.value.trim() !== "") {
        try {
          return JSON.parse(raw.value);
        } catch (error) {
          throw new Error("The arguments are not valid JSON: " + error.message);
        }
      }
      const values = {};
      for (const [name, read] of readers) {
        const value = read();
        if (value !== undefined) values[name] = value;
      }
      return values;
    },
  };
}

function readFailed(name, problem) {
  throw new Error("Field \"" + name + "\": " + problem);
}

/** The Mcp-Param-* headers of the arguments whose schema has x-mcp-header (SEP-2243). */
function paramHeaders(schema, args) {
  const headers = {};
  const walk = (node, value) => {
    if (!isObject(node) || !isObject(node.properties) || !isObject(value)) return;
    for (const [key, property] of Object.entries(node.properties)) {
      if (!Object.hasOwn(value, key)) continue;
      const argument = value[key];
      if (isObject(property) && typeof property["x-mcp-header"] === "string" &&
        argument !== null && ["string", "number", "boolean"].includes(typeof argument)) {
        headers["mcp-param-" + property["x-mcp-header"]] = headerValue(argument);
      }
      walk(property, argument);
    }
  };
  walk(schema, args);
  return headers;
}

// ---- Results.

function contentBlock(block) {
  if (!isObject(block)) return el("pre", { text: json(block) });
  switch (block.type) {
    case "text":
      return el("pre", { class: "block block-text", text: block.text });
    case "image":
    case "audio": {
      const mime = String(block.mimeType || "");
      if (!new RegExp("^" + block.type + "/[A-Za-z0-9.+-]+$").test(mime)) {
        return el("p", { class: "error-text", text: block.type + " block with MIME type \"" + mime + "\"" });
      }
      const src = "data:" + mime + ";base64," + String(block.data || "");
      return block.type === "image"
        ? el("img", { class: "block block-image", src, alt: "image (" + mime + ")" })
        : el("audio", { class: "block block-audio", src, controls: true });
    }
    case "resource_link":
      return el("p", { class: "block block-link", text: "Link: " + block.uri +
        (block.name ? " (" + block.name + ")" : "") });
    case "resource": {
      const resource = isObject(block.resource) ? block.resource : {};
      return el("div", { class: "block block-resource" },
        el("p", { class: "muted", text: "Resource " + resource.uri + " " + (resource.mimeType || "") }),
        resourceBody(resource));
    }
  }
  return el("pre", { class: "block", text: json(block) });
}

function resourceBody(contents) {
  if (typeof contents.text === "string") return el("pre", { class: "block-text", text: contents.text });
  if (typeof contents.blob === "string") {
    const mime = String(contents.mimeType || "");
    if (/^image\/[A-Za-z0-9.+-]+$/.test(mime)) {
      return el("img", { class: "block", src: "data:" + mime + ";base64," + contents.blob, alt: contents.uri });
    }
    return el("p", { class: "muted", text: "Binary, " + Math.floor(contents.blob.length * 3 / 4) + " bytes (base64)" });
  }
  return el("pre", { text: json(contents) });
}

function showResult(box, result) {
  const isError = result.isError === true;
  box.classList.toggle("is-error", isError);
  const parts = [el("p", { class: "outcome", text: isError ? "isError: true" : "Result" })];
  for (const block of Array.isArray(result.content) ? result.content : []) parts.push(contentBlock(block));
  if (result.structuredContent !== undefined) {
    parts.push(el("p", { class: "muted", text: "structuredContent" }),
      el("pre", { class: "structured", text: json(result.structuredContent) }));
  }
  parts.push(el("details", {}, el("summary", { text: "Raw result" }), el("pre", { text: json(result) })));
  box.querySelector(".result").replaceChildren(...parts);
}

function showFailure(box, error) {
  box.classList.add("is-error");
  box.querySelector(".result").replaceChildren(el("pre", { class: "error-text failure", text: errorText(error) }));
}

/** The panel of one run: progress, elapsed time, log lines, the task's state and the result. */
function runBox() {
  return el("section", { class: "run", id: "run" },
    el("div", { class: "controls" },
      el("progress", { class: "progress", max: 1, value: 0 }),
      el("span", { class: "progress-message" }),
      el("span", { class: "elapsed muted" })),
    el("div", { class: "task" }),
    el("div", { class: "input" }),
    el("ul", { class: "logs" }),
    el("div", { class: "result" }));
}

function notificationHandler(box) {
  return (message) => {
    const params = isObject(message.params) ? message.params : {};
    if (message.method === "notifications/progress") {
      const bar = box.querySelector(".progress");
      if (typeof params.total === "number" && params.total > 0) {
        bar.max = params.total;
        bar.value = Math.min(params.progress, params.total);
      } else bar.removeAttribute("value");
      box.querySelector(".progress-message").textContent = String(params.progress) +
        (typeof params.total === "number" ? " / " + params.total : "") +
        (typeof params.message === "string" ? " " + params.message : "");
    } else if (message.method === "notifications/message") {
      const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
      box.querySelector(".logs").append(el("li", {
        text: "[" + params.level + "]" + (params.logger ? " " + params.logger + ":" : "") + " " + data,
      }));
    }
  };
}

/** Starts the elapsed-time display of a run; the function it returns stops it. */
function clock(box) {
  const started = performance.now();
  const shown = box.querySelector(".elapsed");
  const tick = () => shown.textContent = ((performance.now() - started) / 1000).toFixed(2) + " s";
  tick();
  const timer = setInterval(tick, 100);
  return () => {
    clearInterval(timer);
    tick();
  };
}

// ---- Details.

function heading(title, sub) {
  return el("h2", {}, title, sub ? el("span", { class: "muted", text: " " + sub }) : null);
}

function showTool(tool) {
  const annotations = isObject(tool.annotations) ? tool.annotations : {};
  const badges = Object.entries(annotations).map(([key, value]) =>
    el("span", { text: key + ": " + (typeof value === "string" ? value : JSON.stringify(value)) }));
  const uri = appUri(tool);
  if (uri !== undefined) badges.push(el("span", { text: "app: " + uri }));
  const { form, values } = schemaForm(tool.inputSchema);
  const level = el("select", { id: "log-level" }, el("option", { value: "", text: "no logs" }),
    LOG_LEVELS.map((name) => el("option", { value: name, text: name })));
  level.value = "info";
  const extensions = isObject(state.capabilities.extensions) ? state.capabilities.extensions : {};
  const execution = isObject(tool.execution) ? tool.execution : {};
  const taskable = extensions[TASKS_EXTENSION] !== undefined && execution.taskSupport !== "forbidden";
  const asTask = taskable ? el("input", { type: "checkbox", id: "as-task" }) : null;
  let box = runBox();
  const app = el("div", { id: "app" });
  const call = el("button", { type: "button", id: "call", text: "Call" });
  const stop = el("button", { type: "button", id: "stop", text: "Stop", disabled: true });
  let controller = null;
  stop.addEventListener("click", () => controller && controller.abort());
  call.addEventListener("click", async () => {
    let args;
    try {
      args = values();
    } catch (error) {
      box.querySelector(".result").replaceChildren(el("p", { class: "error-text", text: error.message }));
      return;
    }
    const fresh = runBox();
    box.replaceWith(fresh);
    box = fresh;
    controller = new AbortController();
    call.disabled = true;
    stop.disabled = false;
    try {
      await runTool(tool, args, { box: fresh, app, level: level.value, asTask: asTask && asTask.checked,
        signal: controller.signal });
    } finally {
      call.disabled = false;
      stop.disabled = true;
      controller = null;
    }
  });
  return [
    heading(tool.title || tool.name, tool.title ? tool.name : ""),
    el("p", { class: "description", text: tool.description || "" }),
    el("div", { class: "badges" }, badges),
    form,
    el("div", { class: "controls" }, call, stop,
      el("label", {}, "Log level ", level),
      asTask ? el("label", { title: "Declare the tasks extension: a tool that may run as a task answers with one" },
        asTask, " call as a task") : null),
    box,
    app,
  ];
}

async function runTool(tool, args, { box, app, level, asTask, signal }) {
  const stopClock = clock(box);
  const uri = appUri(tool);
  let hosted;
  if (uri !== undefined) {
    try {
      hosted = await openApp(tool, uri, args, app);
    } catch (error) {
      app.replaceChildren(el("p", { class: "error-text", text: "The app " + uri + " cannot be shown: " + errorText(error) }));
    }
  }
  const meta = { progressToken: "dev-" + (++state.nextToken) };
  if (level) meta[META_LOG_LEVEL] = level;
  try {
    let result = await callAsking("tools/call", { name: tool.name, arguments: args }, {
      meta, asTask, signal, headers: paramHeaders(tool.inputSchema, args),
      onNotification: notificationHandler(box),
    }, box.querySelector(".input"));
    if (isObject(result) && result.resultType === "task") result = await followTask(box, result, signal);
    if (jobNext(result) !== undefined) result = await followJob(box, result, signal);
    if (result !== undefined) {
      showResult(box, result);
      if (hosted) hosted.result(result);
    }
  } catch (error) {
    if (signal.aborted) {
      const following = box.querySelector(".task").childElementCount > 0;
      box.querySelector(".result").replaceChildren(el("p", { class: "error-text", text: following
        ? "Stopped following the task, which runs on (Cancel task ends it)."
        : "Stopped: the page closed the answer's stream, which cancels the call." }));
    }
    else showFailure(box, error);
  } finally {
    stopClock();
  }
}

/** Polls tasks/get (a bounded number of times) until the task ends; its result, or undefined. */
async function followTask(box, task, signal) {
  const taskId = task.taskId;
  const options = { asTask: true };
  const status = el("span", { class: "task-status" });
  const message = el("span", { class: "task-message muted" });
  const cancel = el("button", { type: "button", id: "cancel-task", text: "Cancel task" });
  const answers = el("div", { class: "task-input" });
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      await rpc("tasks/cancel", { taskId }, options);
    } catch (error) {
      message.textContent = "tasks/cancel: " + errorText(error);
    }
  });
  box.querySelector(".task").replaceChildren(el("div", { class: "controls" },
    el("span", { text: "Task " + taskId }), status, message, cancel), answers);
  let current = task;
  let asked = "";
  for (let poll = 0; poll <= TASK_POLLS; poll++) {
    status.textContent = String(current.status);
    message.textContent = typeof current.statusMessage === "string" ? current.statusMessage : "";
    if (TERMINAL.has(current.status)) break;
    if (current.status === "input_required" && JSON.stringify(current.inputRequests) !== asked) {
      asked = JSON.stringify(current.inputRequests);
      askTask(answers, taskId, current.inputRequests, signal);
    }
    if (poll === TASK_POLLS) {
      message.textContent = "The page stopped polling after " + TASK_POLLS + " polls; the task runs on.";
      return undefined;
    }
    if (signal.aborted) throw new Error("Stopped following the task");
    if (!box.isConnected) return undefined; // the page shows something else now
    const wait = typeof current.pollIntervalMs === "number" ? current.pollIntervalMs : 500;
    await sleep(Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, wait)));
    current = await rpc("tasks/get", { taskId }, options);
  }
  cancel.disabled = true;
  answers.replaceChildren();
  if (current.status === "failed" && current.error) throw rpcError(current.error);
  if (current.status === "cancelled") {
    box.querySelector(".result").replaceChildren(el("p", { class: "error-text", text: "The task was cancelled." }));
    return undefined;
  }
  return isObject(current.result) ? current.result : current;
}

/** The next call a job's answer names (structuredContent.job.next), or undefined. */
function jobNext(result) {
  const job = isObject(result) && isObject(result.structuredContent) ? result.structuredContent.job : null;
  return isObject(job) && isObject(job.next) && typeof job.next.tool === "string" ? job : undefined;
}

/**
 * A call that became a job (a client without tasks, adr/0070): makes the call each answer
 * names (the job tool, which waits) until one names none, a bounded number of times; Cancel
 * job asks the job tool to cancel. The tool's own result, or undefined.
 */
async function followJob(box, handle, signal) {
  const first = jobNext(handle);
  const status = el("span", { class: "task-status" });
  const message = el("span", { class: "task-message muted" });
  const cancel = el("button", { type: "button", id: "cancel-job", text: "Cancel job" });
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      await rpc("tools/call", { name: first.next.tool, arguments: { id: first.id, cancel: true } }, {});
    } catch (error) {
      message.textContent = "cancel: " + errorText(error);
    }
  });
  box.querySelector(".task").replaceChildren(el("div", { class: "controls" },
    el("span", { text: "Job " + first.id }), status, message, cancel));
  let result = handle;
  for (let wait = 0; wait <= TASK_POLLS; wait++) {
    const job = jobNext(result);
    if (job === undefined) break;
    status.textContent = String(job.status);
    message.textContent = typeof job.statusMessage === "string" ? job.statusMessage : "";
    if (wait === TASK_POLLS) {
      message.textContent = "The page stopped following after " + TASK_POLLS + " waits; the job runs on.";
      return undefined;
    }
    if (signal.aborted) throw new Error("Stopped following the job");
    if (!box.isConnected) return undefined;
    result = await rpc("tools/call", { name: job.next.tool, arguments: job.next.arguments }, {});
  }
  cancel.disabled = true;
  status.textContent = result.isError === true ? "ended with an error" : "done";
  return result;
}

/** A task's questions (status input_required), sent with tasks/update once the person answers. */
async function askTask(container, taskId, requests, signal) {
  try {
    const inputResponses = await askPerson(container, requests, signal);
    await rpc("tasks/update", { taskId, inputResponses }, { asTask: true });
  } catch (error) {
    container.replaceChildren(el("p", { class: "error-text", text: "tasks/update: " + errorText(error) }));
  }
}

function showResource(resource) {
  const box = el("div", { class: "result", id: "read-result" });
  const read = el("button", { type: "button", id: "read", text: "Read" });
  read.addEventListener("click", () => readInto(box, resource.uri));
  return [
    heading(resource.title || resource.name || resource.uri, resource.uri),
    el("p", { class: "description", text: resource.description || "" }),
    el("div", { class: "badges" }, resource.mimeType ? el("span", { text: resource.mimeType }) : null,
      typeof resource.size === "number" ? el("span", { text: resource.size + " bytes" }) : null),
    el("div", { class: "controls" }, read),
    box,
  ];
}

async function readInto(box, uri) {
  const asking = el("div", { class: "input" });
  box.replaceChildren(el("p", { class: "muted", text: "Reading " + uri + " …" }), asking);
  try {
    const result = await callAsking("resources/read", { uri }, {}, asking);
    const contents = Array.isArray(result.contents) ? result.contents : [];
    box.replaceChildren(...contents.map((entry) => el("div", {},
      el("p", { class: "muted", text: entry.uri + " " + (entry.mimeType || "") }), resourceBody(entry))));
  } catch (error) {
    box.replaceChildren(el("pre", { class: "error-text failure", text: errorText(error) }));
  }
}

/**
 * A template's variables as fields, for the expressions "{name}" and "{+name}" (RFC 6570 levels
 * 1 and 2, what toolshed's templates use); with any other expression, none (the URI is typed).
 */
function templateVariables(template) {
  const expressions = [...template.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]);
  if (!expressions.every((expression) => /^\+?[A-Za-z0-9_.]+$/.test(expression))) return [];
  return [...new Set(expressions.map((expression) => expression.replace(/^\+/, "")))];
}

/** The template with each variable's value in place: encoded, or (with "+") reserved kept. */
function expandTemplate(template, values) {
  return template.replace(/\{(\+?)([A-Za-z0-9_.]+)\}/g, (_, reserved, name) =>
    reserved ? encodeURI(values[name] || "") : encodeURIComponent(values[name] || ""));
}

function showTemplate(template) {
  const uri = el("input", { id: "template-uri", value: template.uriTemplate, size: 60 });
  const variables = templateVariables(template.uriTemplate);
  const inputs = variables.map((name) => el("input", { "data-field": name }));
  const update = () => {
    const values = {};
    variables.forEach((name, index) => values[name] = inputs[index].value);
    uri.value = expandTemplate(template.uriTemplate, values);
  };
  for (const input of inputs) input.addEventListener("input", update);
  const box = el("div", { class: "result", id: "read-result" });
  const read = el("button", { type: "button", id: "read", text: "Read" });
  read.addEventListener("click", () => readInto(box, uri.value));
  return [
    heading(template.title || template.name || template.uriTemplate, template.uriTemplate),
    el("p", { class: "description", text: template.description || "" }),
    el("form", { class: "fields", onsubmit: (event) => event.preventDefault() },
      variables.map((name, index) => el("label", {}, el("span", { class: "name", text: name }), inputs[index])),
      el("label", {}, el("span", { class: "name", text: "URI" }), uri)),
    el("div", { class: "controls" }, read),
    box,
  ];
}

function showPrompt(prompt) {
  const properties = {};
  const required = [];
  for (const argument of Array.isArray(prompt.arguments) ? prompt.arguments : []) {
    if (!isObject(argument) || typeof argument.name !== "string") continue;
    properties[argument.name] = { type: "string", maxLength: 1000,
      description: typeof argument.description === "string" ? argument.description : undefined };
    if (argument.required === true) required.push(argument.name);
  }
  const { form, values } = schemaForm({ type: "object", properties, required });
  const box = el("div", { class: "result", id: "prompt-result" });
  const asking = el("div", { class: "input" });
  const get = el("button", { type: "button", id: "get", text: "Get" });
  get.addEventListener("click", async () => {
    try {
      const result = await callAsking("prompts/get", { name: prompt.name, arguments: values() }, {}, asking);
      const messages = Array.isArray(result.messages) ? result.messages : [];
      box.replaceChildren(
        result.description ? el("p", { class: "muted", text: result.description }) : "",
        ...messages.map((message) => el("div", { class: "message" },
          el("p", { class: "name", text: String(message.role) }), contentBlock(message.content))));
    } catch (error) {
      box.replaceChildren(el("pre", { class: "error-text failure", text: errorText(error) }));
    }
  });
  return [
    heading(prompt.title || prompt.name, prompt.title ? prompt.name : ""),
    el("p", { class: "description", text: prompt.description || "" }),
    form,
    el("div", { class: "controls" }, get),
    asking,
    box,
  ];
}

function showSkill(skill) {
  const front = isObject(skill.frontmatter) ? skill.frontmatter : {};
  const files = Array.isArray(skill.resources) ? skill.resources : [];
  const box = el("div", { class: "result", id: "read-result" });
  return [
    heading(skillName(skill), skill.uri),
    el("p", { class: "description", text: typeof front.description === "string" ? front.description : "" }),
    el("details", {}, el("summary", { text: "Front matter" }), el("pre", { text: json(front) })),
    el("h3", { text: files.length === 0 ? "Files: " + JSON.stringify(skill.resources) : "Files" }),
    el("ul", {}, files.map((file) => el("li", {},
      el("button", { type: "button", text: file.uri, onclick: () => readInto(box, file.uri) }),
      el("span", { class: "muted", text: " " + file.size + " bytes, " + file.digest })))),
    box,
  ];
}

// ---- Apps: the ui:// page in a sandboxed frame, and the host side of its bridge.

/** Origins as a CSP source list takes them; anything else (quotes, spaces, ;) is dropped. */
function sources(list) {
  if (!Array.isArray(list)) return "";
  return list.filter((origin) => typeof origin === "string" &&
    /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9.-]+(?::(?:\d{1,5}|\*))?(?:\/[A-Za-z0-9._~\/-]*)?$/.test(origin))
    .join(" ");
}

/** The app's page with a Content-Security-Policy of its _meta.ui.csp in front (nothing else). */
function withCsp(html, csp) {
  csp = isObject(csp) ? csp : {};
  const resources = sources(csp.resourceDomains);
  const policy = [
    "default-src 'none'",
    "script-src 'unsafe-inline' " + resources,
    "style-src 'unsafe-inline' " + resources,
    "img-src data: blob: " + resources,
    "font-src data: " + resources,
    "media-src data: blob: " + resources,
    "connect-src " + (sources(csp.connectDomains) || "'none'"),
    "frame-src " + (sources(csp.frameDomains) || "'none'"),
    "base-uri " + (sources(csp.baseUriDomains) || "'none'"),
  ].join("; ");
  const meta = document.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = policy;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? doctype[0] + meta.outerHTML + html.slice(doctype[0].length) : meta.outerHTML + html;
}

function closeApp() {
  if (state.app) state.app.close();
  state.app = null;
}

/** Reads the tool's ui:// page and renders it; resolves with { result(r) } to pass the result on. */
async function openApp(tool, uri, args, container) {
  closeApp();
  const read = await rpc("resources/read", { uri });
  const contents = (Array.isArray(read.contents) ? read.contents : []).find((entry) => entry.uri === uri) ||
    (Array.isArray(read.contents) ? read.contents[0] : undefined);
  if (!isObject(contents) || typeof contents.text !== "string") throw new Error(uri + " has no text");
  if (contents.mimeType !== APP_MIME) {
    throw new Error(uri + " is \"" + contents.mimeType + "\", not \"" + APP_MIME + "\"");
  }
  const listed = state.resources.find((resource) => resource.uri === uri);
  const uiMeta = isObject(contents._meta) && isObject(contents._meta.ui) ? contents._meta.ui
    : listed && isObject(listed._meta) && isObject(listed._meta.ui) ? listed._meta.ui : {};
  const frame = el("iframe", { id: "app-frame", class: "app", title: "App " + uri });
  frame.setAttribute("sandbox", "allow-scripts");
  const app = { frame, tool, args, initialized: false, result: undefined, closed: false };
  const send = (message) => {
    if (app.closed || !frame.contentWindow) return;
    traffic("out", "app", JSON.stringify(message));
    frame.contentWindow.postMessage(message, "*");
  };
  app.send = send;
  app.deliver = () => {
    if (!app.initialized) return;
    if (app.args !== undefined) {
      send({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: app.args } });
      app.args = undefined;
    }
    if (app.result !== undefined && !app.resultSent) {
      app.resultSent = true;
      send({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: app.result });
    }
  };
  app.close = () => {
    app.closed = true;
    frame.remove();
  };
  state.app = app;
  container.replaceChildren(el("p", { class: "muted", text: "App " + uri }), frame);
  frame.srcdoc = withCsp(contents.text, uiMeta.csp);
  return {
    result(result) {
      app.result = result;
      app.deliver();
    },
  };
}

/** Whether the app may call the tool "name": one served whose _meta.ui.visibility includes "app". */
function appMayCall(name) {
  const tool = state.tools.find((candidate) => candidate.name === name);
  if (tool === undefined) return false;
  const ui = isObject(tool._meta) && isObject(tool._meta.ui) ? tool._meta.ui : {};
  return !Array.isArray(ui.visibility) || ui.visibility.includes("app");
}

async function answerApp(app, message) {
  const reply = (body) => app.send(Object.assign({ jsonrpc: "2.0", id: message.id }, body));
  const params = isObject(message.params) ? message.params : {};
  switch (message.method) {
    case "ui/initialize":
      return reply({ result: {
        protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : APPS_PROTOCOL,
        hostInfo: { name: "toolshed dev", version: CLIENT_INFO.version },
        hostCapabilities: { serverTools: {}, logging: {} },
        hostContext: { toolInfo: { tool: app.tool }, theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
          displayMode: "inline", availableDisplayModes: ["inline"], locale: navigator.language,
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, userAgent: "toolshed dev" },
      } });
    case "ping":
      return reply({ result: {} });
    case "tools/call": {
      const name = params.name;
      if (typeof name !== "string" || !appMayCall(name)) {
        return reply({ error: { code: -32602, message: "The app may not call the tool \"" + name + "\"" } });
      }
      const args = isObject(params.arguments) ? params.arguments : {};
      const tool = state.tools.find((candidate) => candidate.name === name);
      try {
        const result = await rpc("tools/call", { name, arguments: args },
          { headers: paramHeaders(tool.inputSchema, args) });
        return reply({ result });
      } catch (error) {
        return reply({ error: error.rpc || { code: -32603, message: errorText(error) } });
      }
    }
  }
  return reply({ error: { code: -32601, message: "Method not found: " + message.method } });
}

addEventListener("message", (event) => {
  const app = state.app;
  if (!app || app.closed || event.source !== app.frame.contentWindow) return;
  const message = event.data;
  let raw;
  try {
    raw = JSON.stringify(message);
  } catch {
    return;
  }
  traffic("in", "app", raw);
  if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") return;
  if (message.id !== undefined) {
    answerApp(app, message);
    return;
  }
  const params = isObject(message.params) ? message.params : {};
  if (message.method === "ui/notifications/initialized") {
    app.initialized = true;
    app.frame.dataset.initialized = "true";
    app.deliver();
  } else if (message.method === "ui/notifications/size-changed" && typeof params.height === "number") {
    app.frame.style.height = Math.max(40, Math.min(4000, params.height)) + "px";
  } else if (message.method === "notifications/message") {
    const logs = document.querySelector("#run .logs");
    if (logs) logs.append(el("li", { text: "[app " + params.level + "] " + JSON.stringify(params.data) }));
  }
});

// ---- The dev loop: check findings and reloads.

/** A finding's file as the directory's authors name it: relative to the directory served. */
function shortPath(file) {
  if (typeof file !== "string") return "(the directory)";
  const dir = typeof state.dir === "string" ? state.dir.replace(/\/+$/, "") + "/" : undefined;
  return dir !== undefined && file.startsWith(dir) ? file.slice(dir.length) : file;
}

function showChecked(checked) {
  if (!isObject(checked)) return;
  const findings = Array.isArray(checked.findings) ? checked.findings : [];
  $("findings-summary").textContent = "check: " + checked.errors + " error" + (checked.errors === 1 ? "" : "s") +
    ", " + checked.warnings + " warning" + (checked.warnings === 1 ? "" : "s") +
    (checked.at ? " at " + new Date(checked.at).toLocaleTimeString() : "");
  $("findings-summary").className = checked.errors > 0 ? "error-text" : "";
  $("findings-list").replaceChildren(...findings.map((finding) => {
    const where = shortPath(finding.file) +
      (typeof finding.line === "number" ? ":" + finding.line + (typeof finding.column === "number" ? ":" + finding.column : "") : "");
    return el("li", { class: finding.severity }, el("strong", { text: where }), " " + finding.message +
      (finding.source ? " (" + finding.source + ")" : ""));
  }));
}

function showReloaded(reloaded) {
  const banner = $("banner");
  const at = reloaded.at ? new Date(reloaded.at).toLocaleTimeString() : "";
  if (reloaded.ok) {
    banner.className = "";
    banner.textContent = "Reloaded at " + at;
  } else {
    banner.className = "refused";
    const problems = Array.isArray(reloaded.problems) ? reloaded.problems : [];
    banner.replaceChildren("An edit was refused at " + at + "; the last good version of each bad file keeps serving:",
      el("ul", {}, problems.map((problem) => el("li", { text: String(problem) }))));
  }
  // Listed again either way: a refused edit may come with good ones that were served.
  relist();
}

function listen() {
  const events = new EventSource("/dev/events");
  events.addEventListener("open", () => $("live").textContent = "watching");
  events.addEventListener("error", () => $("live").textContent = "not connected to /dev/events (retrying)");
  for (const [name, show] of [["checked", showChecked], ["reloaded", showReloaded]]) {
    events.addEventListener(name, (event) => {
      try {
        show(JSON.parse(event.data));
      } catch (error) {
        $("banner").textContent = "A " + name + " event that is not JSON: " + error.message;
      }
    });
  }
}

async function start() {
  $("clear-traffic").addEventListener("click", () => $("traffic-list").replaceChildren());
  try {
    const response = await fetch("/dev/state");
    const devState = await response.json();
    state.dir = devState.dir;
    $("dir").textContent = String(devState.dir);
    showChecked(devState.checked);
  } catch (error) {
    $("dir").textContent = "/dev/state: " + errorText(error);
  }
  listen();
  await relist();
  document.body.dataset.ready = "true";
}

start();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolshed dev</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>toolshed dev</h1>
  <span id="server"></span>
  <span id="dir" class="muted"></span>
  <span id="tasks-offered" class="muted"></span>
  <span id="live" class="muted">connecting</span>
</header>
<div id="status">
  <div id="banner"></div>
  <details id="findings" open><summary id="findings-summary">check: not run yet</summary>
    <ul id="findings-list" class="findings"></ul></details>
</div>
<main>
  <nav>
    <h2>Tools <span id="count-tools"></span></h2><ul id="list-tools"></ul>
    <h2>Apps <span id="count-apps"></span></h2><ul id="list-apps"></ul>
    <h2>Resources <span id="count-resources"></span></h2><ul id="list-resources"></ul>
    <h2>Templates <span id="count-templates"></span></h2><ul id="list-templates"></ul>
    <h2>Prompts <span id="count-prompts"></span></h2><ul id="list-prompts"></ul>
    <h2>Skills <span id="count-skills"></span></h2><ul id="list-skills"></ul>
  </nav>
  <section id="detail"><p class="muted">Pick a tool, resource, prompt or skill.</p></section>
  <section id="traffic">
    <h2>Traffic <button type="button" id="clear-traffic">Clear</button></h2>
    <div id="traffic-list"></div>
  </section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
