// The transcript runner's account of a mismatch (tests/_line_diff.ts): the first differing
// path, and both lines as indented JSON, diffed.
import { equal, match } from "node:assert/strict";
import { diffLines, lineMismatch } from "./_line_diff.ts";

Deno.test("lineMismatch() is undefined for equal lines, and names the first differing path", () => {
  const line = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}';
  equal(lineMismatch(line, line), undefined);
  const mismatch = lineMismatch(line, line.replace('"hi"', '"ho"'));
  match(mismatch!, /^it differs at result\.content\[0\]\.text \("ho" instead of "hi"\)\n/);
  match(mismatch!, /\n- {9}"text": "hi"\n\+ {9}"text": "ho"\n/);
});

Deno.test("lineMismatch() names a missing key, an unexpected key, a length and the key order", () => {
  match(lineMismatch('{"a":1,"b":2}', '{"a":1}')!, /^it differs at b \(missing\)/);
  match(lineMismatch('{"a":1}', '{"a":1,"io/x":2}')!, /^it differs at \["io\/x"\] \(unexpected\)/);
  match(lineMismatch('{"a":[1,2]}', '{"a":[1]}')!, /^it differs at a \(1 items instead of 2\)/);
  match(
    lineMismatch('{"a":1,"b":2}', '{"b":2,"a":1}')!,
    /^it differs at the top level \(key order: b, a instead of a, b\)/,
  );
  match(lineMismatch('{"a":"é"}', '{"a":"\\u00e9"}')!, /^it differs at nowhere in value/);
  match(lineMismatch("not json", "{}")!, /^the line differs \(not both JSON\)/);
});

Deno.test("diffLines() marks removed and added lines and cuts long unchanged runs short", () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i}`);
  const after = before.map((line) => line === "line 10" ? "line ten" : line);
  equal(
    diffLines(before, after),
    [
      "- expected",
      "+ actual",
      "",
      "  …",
      "  line 7",
      "  line 8",
      "  line 9",
      "- line 10",
      "+ line ten",
      "  line 11",
      "  line 12",
      "  line 13",
      "  …",
    ].join("\n"),
  );
});
