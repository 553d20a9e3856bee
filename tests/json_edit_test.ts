// setServer() (lib/commands/json_edit.ts): one server's entry set in a configuration file's
// text, every other byte as it was. The command's own tests (config_command_test.ts) cover
// whole files; these, the places an entry can go.
import assert from "node:assert/strict";
import { setServer } from "../lib/commands/json_edit.ts";

const ENTRY = { command: "run", args: ["a"] };

Deno.test("setServer() puts the comma after the last entry and the new one after that line's comment", () => {
  const text = '{\n  "servers": {\n    "a": { "n": 1e400 } // note\n  }\n}\n';
  assert.deepEqual(setServer(text, "servers", "t", ENTRY), {
    kind: "added",
    text:
      '{\n  "servers": {\n    "a": { "n": 1e400 }, // note\n    "t": {\n      "command": "run",' +
      '\n      "args": [\n        "a"\n      ]\n    }\n  }\n}\n',
  });
});

Deno.test("setServer() fills an empty object written over lines, and adds the servers' object when there is none", () => {
  const empty = setServer('{\n  "servers": {\n    // none yet\n  }\n}', "servers", "t", {});
  assert.deepEqual(empty, {
    kind: "added",
    text: '{\n  "servers": {\n    "t": {}\n    // none yet\n  }\n}',
  });
  const none = setServer('{\n    "theme": "dark",\n}', "servers", "t", {});
  assert.deepEqual(none, {
    kind: "added",
    text: '{\n    "theme": "dark",\n    "servers": {\n        "t": {}\n    }\n}',
  });
});

Deno.test("setServer() answers unchanged for the same entry, and replaces another with the previous value given", () => {
  const text = '{"servers": {"t": {"command": "run", "args": ["a"]}}} // mine\n';
  assert.deepEqual(setServer(text, "servers", "t", ENTRY), { kind: "unchanged" });
  const replaced = setServer(text, "servers", "t", { command: "other" });
  assert.ok(replaced.kind === "replaced");
  assert.equal(replaced.text, '{"servers": {"t": {"command":"other"}}} // mine\n');
  assert.equal(JSON.stringify(replaced.previous), JSON.stringify(ENTRY));
});

Deno.test("setServer() writes an empty object, the usual new file, over lines", () => {
  assert.deepEqual(setServer("{}\n", "servers", "t", { command: "run" }), {
    kind: "added",
    text: '{\n  "servers": {\n    "t": {\n      "command": "run"\n    }\n  }\n}\n',
  });
  assert.deepEqual(setServer('{"servers": {}}', "servers", "t", {}), {
    kind: "added",
    text: '{"servers": {\n  "t": {}\n}}',
  });
});
