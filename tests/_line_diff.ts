// Test helper: says how two protocol lines differ, for a person to read. Lines are compared
// as text (key order and escapes are part of the contract); when they differ, both are shown
// as indented JSON, as a line diff, with the first differing path named.

/** Undefined when the lines are equal, else a readable account of the difference. */
export function lineMismatch(expected: string, actual: string): string | undefined {
  if (expected === actual) return undefined;
  const wanted = parsed(expected);
  const got = parsed(actual);
  if (wanted === undefined || got === undefined) {
    return `the line differs (not both JSON):\n  expected: ${expected}\n  actual:   ${actual}`;
  }
  const where = firstDifference(wanted.value, got.value, []) ??
    "nowhere in value: the same JSON, written differently (escapes or number forms)";
  return `it differs at ${where}\n${diffLines(pretty(wanted.value), pretty(got.value))}`;
}

/** Unchanged lines shown around each change; longer runs of them are cut short. */
const CONTEXT_LINES = 3;

/** A `- expected` / `+ actual` diff of two texts' lines, with some context around changes. */
export function diffLines(expected: string[], actual: string[]): string {
  // Longest common subsequence by dynamic programming: lines are few (one message each).
  const columns = actual.length + 1;
  const common = new Uint32Array((expected.length + 1) * columns);
  for (let i = expected.length - 1; i >= 0; i--) {
    for (let j = actual.length - 1; j >= 0; j--) {
      common[i * columns + j] = expected[i] === actual[j]
        ? common[(i + 1) * columns + j + 1] + 1
        : Math.max(common[(i + 1) * columns + j], common[i * columns + j + 1]);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < expected.length || j < actual.length) {
    if (i < expected.length && j < actual.length && expected[i] === actual[j]) {
      lines.push(`  ${expected[i++]}`);
      j++;
    } else if (
      i < expected.length &&
      (j === actual.length || common[(i + 1) * columns + j] >= common[i * columns + j + 1])
    ) {
      lines.push(`- ${expected[i++]}`);
    } else {
      lines.push(`+ ${actual[j++]}`);
    }
  }
  const near = lines.map((_, index) =>
    lines.slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1)
      .some((line) => !line.startsWith("  "))
  );
  const shown: string[] = ["- expected", "+ actual", ""];
  lines.forEach((line, index) => {
    if (near[index]) shown.push(line);
    else if (near[index - 1] !== false) shown.push("  …");
  });
  return shown.join("\n");
}

function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function pretty(value: unknown): string[] {
  return JSON.stringify(value, null, 2).split("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The path of the first difference between two JSON values, with what differs there. */
function firstDifference(expected: unknown, actual: unknown, path: string[]): string | undefined {
  const here = pathText(path);
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const found = firstDifference(expected[i], actual[i], [...path, `[${i}]`]);
      if (found) return found;
    }
    if (expected.length !== actual.length) {
      return `${here} (${actual.length} items instead of ${expected.length})`;
    }
    return undefined;
  }
  if (isRecord(expected) && isRecord(actual)) {
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(actual, key)) return `${pathText([...path, keyText(key)])} (missing)`;
      const found = firstDifference(expected[key], actual[key], [...path, keyText(key)]);
      if (found) return found;
    }
    for (const key of Object.keys(actual)) {
      if (!Object.hasOwn(expected, key)) return `${pathText([...path, keyText(key)])} (unexpected)`;
    }
    const order = (record: Record<string, unknown>) => Object.keys(record).join(", ");
    if (order(expected) !== order(actual)) {
      return `${here} (key order: ${order(actual)} instead of ${order(expected)})`;
    }
    return undefined;
  }
  if (Object.is(expected, actual)) return undefined;
  return `${here} (${short(actual)} instead of ${short(expected)})`;
}

/** A value as JSON, cut to its first 200 characters. */
function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function keyText(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function pathText(path: string[]): string {
  return path.length === 0 ? "the top level" : path.join("").replace(/^\./, "");
}
