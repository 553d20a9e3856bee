// One server's table in TOML, as Codex reads it from ~/.codex/config.toml: a header
// [mcp_servers.NAME] and a `key = value` line for each field, values written inline (strings,
// numbers, booleans, arrays, inline tables). No library: what `config codex` prints needs only
// this, and toml_edit.ts, which edits a file, checks what it writes with a parser.

/** The lines of the table `[path…]` holding `fields`, each ending in `eol`. */
export function tomlTable(
  path: readonly string[],
  fields: Record<string, unknown>,
  eol = "\n",
): string {
  const lines = [`[${path.map(tomlKey).join(".")}]`];
  for (const [key, value] of Object.entries(fields)) {
    lines.push(`${tomlKey(key)} = ${tomlValue(value)}`);
  }
  return lines.map((line) => line + eol).join("");
}

/** A key: bare when TOML allows it, else a quoted string. */
function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/**
 * A basic string. JSON's escapes are TOML's (\", \\, \b, \t, \n, \f, \r, \uXXXX), but TOML also
 * forbids DEL unescaped, and a lone surrogate has no TOML escape at all.
 */
function tomlString(text: string): string {
  if (!text.isWellFormed()) throw new Error(`"${text}" holds a lone surrogate, which TOML cannot`);
  return JSON.stringify(text).replace(/\x7f/g, "\\u007F");
}

function tomlValue(value: unknown): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`${value} has no place in a configuration`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const fields = Object.entries(value).map(([key, item]) =>
      `${tomlKey(key)} = ${tomlValue(item)}`
    );
    return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
  }
  throw new Error(`${String(value)} has no TOML form`);
}
