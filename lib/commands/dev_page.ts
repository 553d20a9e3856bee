// The page `toolshed dev` serves at /: one HTML document with its script and style inline, no
// dependency. It lists what the server serves (tools/list over the same-origin MCP endpoint, as
// a 2026-07-28 client asks), shows the last check's findings, and lists again on each reload
// (/dev/events).

/** The page, whole. */
export function devPage(): string {
  return PAGE;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolshed dev</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
  h1 { font-size: 1.3rem; }
  #status { color: #555; }
  .error { color: #b00020; }
  .warning { color: #8a5a00; }
  li { margin: 0.3rem 0; }
  code { background: #f3f3f3; padding: 0 0.2rem; }
</style>
</head>
<body>
<h1>toolshed dev</h1>
<p id="status">Connecting…</p>
<h2>Tools</h2>
<ul id="tools"></ul>
<h2>Check</h2>
<p id="summary">Not checked yet</p>
<ul id="findings"></ul>
<script>
"use strict";
let nextId = 0;
async function ask(method, params) {
  const response = await fetch("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++nextId,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const message = await response.json();
  if (message.error) throw new Error(message.error.message);
  return message.result;
}
function item(text, className) {
  const li = document.createElement("li");
  li.textContent = text;
  if (className) li.className = className;
  return li;
}
async function listTools() {
  const list = document.getElementById("tools");
  try {
    const { tools } = await ask("tools/list", {});
    list.replaceChildren(...tools.map((tool) => item(tool.name + ": " + (tool.description ?? ""))));
    document.getElementById("status").textContent = "Serving " + tools.length + " tool(s)";
  } catch (error) {
    document.getElementById("status").textContent = "Cannot list tools: " + error.message;
  }
}
function showChecked(checked) {
  document.getElementById("summary").textContent =
    checked.errors + " error(s), " + checked.warnings + " warning(s) at " + checked.at;
  document.getElementById("findings").replaceChildren(...checked.findings.map((found) =>
    item(
      found.severity + ": " + (found.file ?? "the server directory") +
        (found.line === undefined ? "" : " line " + found.line) + ": " + found.message,
      found.severity,
    )
  ));
}
const events = new EventSource("/dev/events");
events.addEventListener("checked", (event) => showChecked(JSON.parse(event.data)));
events.addEventListener("reloaded", (event) => {
  const reloaded = JSON.parse(event.data);
  if (!reloaded.ok) {
    document.getElementById("status").textContent =
      "A bad edit was refused: " + reloaded.problems.join("; ");
  }
  listTools();
});
listTools();
</script>
</body>
</html>
`;
