// What one request's log line costs to make (`--log-requests`), for people and as JSON
// (`--log-format json`, docs/operating/logs.md): the line is built as main.ts builds it, not
// written (writing is the same queue for both). The text form is the baseline.
import { logLine, type LogRecord } from "../lib/host/log_lines.ts";

const GROUP = "one request's log line";

const record: LogRecord = {
  level: "info",
  message: 'POST /mcp 200 tools/call by "alice" 3.1 ms',
  fields: {
    http_method: "POST",
    path: "/mcp",
    status: 200,
    method: "tools/call",
    tool: "report",
    subject: "alice",
    duration_ms: 3.1,
  },
};

let sink = 0;

Deno.bench("text (the default)", { group: GROUP, baseline: true }, () => {
  sink += logLine("text", record).length;
});

Deno.bench("--log-format json", { group: GROUP }, () => {
  sink += logLine("json", record).length;
});

globalThis.addEventListener("unload", () => {
  if (sink < 0) throw new Error("unreachable: keeps the lines from being optimized away");
});
