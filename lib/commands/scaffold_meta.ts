// What `toolshed new server NAME` writes: server.meta.json (adr/0049), who the server is, with
// what can be known from NAME filled in and the rest marked TODO, which `toolshed check` warns
// about until it is replaced.
import { parseServerMeta, SERVER_META_FILE, type ServerMeta } from "../primitives/server_meta.ts";
import { SPDX_IDS } from "./spdx_ids.ts";
import { closest } from "../util/suggest.ts";

/** The mark of a value the author has still to write. */
const TODO = "TODO:";

/** The licence `toolshed new server` names unless `--license` names another (adr/0067). */
export const DEFAULT_LICENSE = "MIT";

/**
 * The file's text for the registry name `name` (already checked by parseServerMeta's rule)
 * and `license`, an SPDX expression (undefined: no "license" field).
 */
export function serverMetaScaffold(name: string, license: string | undefined): string {
  const [namespace, server] = name.split("/");
  const meta: Record<string, unknown> = {
    name,
    title: titleOf(server),
    description: `${TODO} what this server does, in one sentence (at most 100 characters)`,
    version: "0.1.0",
  };
  // io.github.alice/x is, by the registry's rule, github.com/alice: its repository is likely there.
  const github = /^io\.github\.([A-Za-z0-9-]+)$/.exec(namespace);
  if (github !== null) {
    meta.repository = { url: `https://github.com/${github[1]}/${server}`, source: "github" };
  }
  meta.author = { name: `${TODO} your name or your organization's` };
  if (license !== undefined) meta.license = license;
  meta.env = {};
  return `${JSON.stringify(meta, null, 2)}\n`;
}

/**
 * `--license` read: an SPDX identifier or expression ("MIT", "MIT OR Apache-2.0",
 * "GPL-2.0-or-later WITH Classpath-exception-2.0", "LicenseRef-…") written as SPDX writes it,
 * none for "none", or why it is neither.
 */
export function licenseOf(given: string): { license: string | undefined } | { problem: string } {
  if (given.toLowerCase() === "none") return { license: undefined };
  const usage = `(--license takes an SPDX identifier or expression, as MIT or "MIT OR ` +
    `Apache-2.0", or none; the identifiers: https://spdx.org/licenses/)`;
  const tokens = given.replace(/[()]/g, " $& ").trim().split(/\s+/).filter((t) => t !== "");
  const written: string[] = [];
  let depth = 0;
  let wantsId = true;
  let afterWith = false;
  for (const token of tokens) {
    const operator = token.toUpperCase();
    if (token === "(" || token === ")") {
      depth += token === "(" ? 1 : -1;
      if (depth < 0 || (token === "(") !== wantsId) break;
      written.push(token);
    } else if (operator === "AND" || operator === "OR" || operator === "WITH") {
      if (wantsId) break;
      written.push(operator);
      [wantsId, afterWith] = [true, operator === "WITH"];
    } else {
      if (!wantsId) break;
      const id = afterWith ? token : spdxId(token);
      if (id === undefined || !/^[A-Za-z0-9.:+-]+$/.test(token)) {
        // "Apache 2.0" is one licence mistyped, not two.
        const meant = (tokens.length > 1 ? suggestion(given) : "") || suggestion(token);
        return { problem: `Unknown SPDX licence "${token}"${meant} ${usage}` };
      }
      written.push(id);
      [wantsId, afterWith] = [false, false];
    }
  }
  if (wantsId || depth !== 0 || written.length !== tokens.length) {
    return { problem: `"${given}" is not an SPDX licence expression ${usage}` };
  }
  return { license: written.join(" ").replaceAll("( ", "(").replaceAll(" )", ")") };
}

/** `token` as SPDX writes it (its case, a trailing "+" kept), or undefined when unknown. */
function spdxId(token: string): string | undefined {
  if (/^(DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+$/.test(token)) return token;
  const plus = token.endsWith("+") ? "+" : "";
  const bare = token.slice(0, token.length - plus.length).toLowerCase();
  const id = SPDX_IDS.find((each) => each.toLowerCase() === bare);
  return id === undefined ? undefined : `${id}${plus}`;
}

/** `; did you mean …?` for a mistyped or deprecated identifier, or "". */
function suggestion(token: string): string {
  const lower = token.toLowerCase();
  const orLater = SPDX_IDS.find((id) => `${id.toLowerCase()}` === `${lower.slice(0, -1)}-or-later`);
  if (lower.endsWith("+") && orLater !== undefined) {
    return `; did you mean ${orLater}? (SPDX no longer has "${token}")`;
  }
  const only = SPDX_IDS.find((id) => id.toLowerCase() === `${lower}-only`);
  if (only !== undefined) {
    return `; did you mean ${only} or ${only.replace(/-only$/, "-or-later")}? (SPDX no longer ` +
      `has "${token}")`;
  }
  const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, "");
  const squashed = closest(squash(token), SPDX_IDS.map(squash));
  const meant = closest(token, SPDX_IDS) ?? SPDX_IDS.find((id) => squash(id) === squashed);
  return meant === undefined ? "" : `; did you mean ${meant}?`;
}

/** Why `name` cannot be a registry name (the file's own rule), or undefined. */
export function problemWithServerName(name: string): string | undefined {
  const parsed = parseServerMeta(
    JSON.stringify({ name, description: "probe", version: "0.0.0" }),
    SERVER_META_FILE,
  );
  return "problems" in parsed ? parsed.problems[0].replace(/^"[^"]*": /, "") : undefined;
}

/** The fields of `meta` that still hold the scaffold's TODO marks, by their path. */
export function unfinishedFields(meta: ServerMeta): string[] {
  const found: string[] = [];
  const visit = (value: unknown, path: string) => {
    if (typeof value === "string" && value.startsWith(TODO)) found.push(path);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        visit(inner, path === "" ? key : `${path}.${key}`);
      }
    }
  };
  visit(meta, "");
  return found;
}

function titleOf(server: string): string {
  return server.split(/[-_.]+/).filter((word) => word !== "")
    .map((word) => word[0].toUpperCase() + word.slice(1)).join(" ");
}
