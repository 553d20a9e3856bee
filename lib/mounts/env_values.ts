// Values toolshed reads from a file in the directory (a mount file, an API's sidecar): `${NAME}`
// expanded from toolshed's environment, and secrets kept out of the directory (adr/0071 §2,
// adr/0072 §1). The rules are a mount file's; mount_file.ts says why each is as it is.
// Messages quote the text as written, never an expanded value: a value may be a secret.

/** Reads a variable of toolshed's environment; undefined when it is not set. */
export type Env = (name: string) => string | undefined;

/** A text with its `${…}` expanded. */
interface Expanded {
  text: string;
  /** How many `${…}` the text had. */
  references: number;
  /** The first variable given a non-empty default, if any. */
  literalDefault?: string;
}

/** Names that hold a secret: their values must come from the environment. */
export const SECRET_NAME = /token|key|secret|password|passwd|auth|credential|cookie|session/i;

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** VS Code's and Cursor's predefined variables: not the environment's. */
const EDITOR_VARIABLES = new Set([
  "workspaceFolder",
  "workspaceFolderBasename",
  "workspaceRoot",
  "userHome",
  "pathSeparator",
  "cwd",
  "file",
  "/",
]);

/**
 * `text` with `${NAME}`, `${NAME:-default}` and `${env:NAME}` replaced from `env`, `$${` as a
 * literal `${`; throws a sentence starting with `where` for a reference it cannot expand.
 */
export function expand(text: string, where: string, env: Env): Expanded {
  let out = "";
  let references = 0;
  let literalDefault: string | undefined;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("$${", i)) {
      out += "${";
      i += 3;
      continue;
    }
    if (!text.startsWith("${", i)) {
      out += text[i++];
      continue;
    }
    const close = text.indexOf("}", i + 2);
    if (close === -1) throw new Error(`${where} has "\${" without its closing "}"`);
    const inner = text.slice(i + 2, close);
    const reference = text.slice(i, close + 1);
    const dash = inner.indexOf(":-");
    let name = dash === -1 ? inner : inner.slice(0, dash);
    const fallback = dash === -1 ? undefined : inner.slice(dash + 2);
    if (name.startsWith("env:")) name = name.slice(4);
    if (fallback?.includes("${")) {
      throw new Error(`${where} nests "\${" in a default: a default is literal text`);
    }
    if (name.startsWith("input:")) {
      throw new Error(
        `${where} has "${reference}", a prompt for a value that toolshed cannot show: set a ` +
          `variable in toolshed's environment and write "\${NAME}"`,
      );
    }
    if (EDITOR_VARIABLES.has(name)) {
      throw new Error(
        `${where} has "${reference}", an editor's variable, not the environment's: write the ` +
          `value, or "\${NAME}" for a variable of toolshed's environment`,
      );
    }
    if (!VARIABLE.test(name)) {
      throw new Error(
        `${where} has "${reference}", which is not a variable: write "\${NAME}" or ` +
          `"\${NAME:-default}" with NAME of letters, digits and "_"`,
      );
    }
    const value = env(name);
    references++;
    if (fallback !== undefined && (value === undefined || value === "")) {
      out += fallback;
      if (fallback !== "") literalDefault ??= name;
    } else if (value === undefined) {
      throw new Error(`${where} needs the variable "${name}", which is not set`);
    } else {
      out += value;
      if (fallback !== undefined && fallback !== "") literalDefault ??= name;
    }
    i = close + 1;
  }
  return { text: out, references, ...literalDefault === undefined ? {} : { literalDefault } };
}

/**
 * Refuses a secret written in the directory: a non-empty `raw` with no `${…}`, or with a
 * non-empty default. `name` (upper-cased) is the variable the message suggests.
 */
export function refuseLiteralSecret(
  expanded: Expanded,
  raw: string,
  where: string,
  name: string,
): void {
  if (raw === "") return;
  const variable = name.replace(/[^A-Za-z0-9_]+/g, "_").toUpperCase();
  if (expanded.references === 0) {
    throw new Error(
      `${where} has a literal value where a secret goes: secrets live in the environment, ` +
        `never in the directory; write "\${${variable}}" and set ${variable} in toolshed's ` +
        "environment",
    );
  }
  if (expanded.literalDefault !== undefined) {
    throw new Error(
      `${where} has a default for "\${${expanded.literalDefault}}" where a secret goes: the ` +
        "default would be a secret in the directory; drop it and set the variable",
    );
  }
}

/** Refuses a query parameter named like a secret with a literal value (`?api_key=abc`). */
export function refuseLiteralSecretQuery(raw: string, field: string): void {
  const start = raw.indexOf("?");
  if (start === -1) return;
  const end = raw.indexOf("#", start);
  const query = raw.slice(start + 1, end === -1 ? undefined : end);
  for (const part of query.split("&")) {
    const equals = part.indexOf("=");
    if (equals === -1) continue;
    let name = part.slice(0, equals);
    try {
      name = decodeURIComponent(name);
    } catch { /* kept as written */ }
    const value = part.slice(equals + 1);
    if (!SECRET_NAME.test(name) || value === "" || value.includes("${")) continue;
    throw new Error(
      `${field} has the query parameter "${name}" with a literal value where a secret goes: ` +
        `secrets live in the environment, never in the directory; write "${name}=\${NAME}"`,
    );
  }
}
