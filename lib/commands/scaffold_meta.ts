// What `toolshed new server NAME` writes: server.meta.json (adr/0049), who the server is, with
// what can be known from NAME filled in and the rest marked TODO, which `toolshed check` warns
// about until it is replaced.
import { parseServerMeta, SERVER_META_FILE, type ServerMeta } from "../primitives/server_meta.ts";

/** The mark of a value the author has still to write. */
const TODO = "TODO:";

/** The file's text for the registry name `name` (already checked by parseServerMeta's rule). */
export function serverMetaScaffold(name: string): string {
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
  meta.license = "MIT";
  meta.env = {};
  return `${JSON.stringify(meta, null, 2)}\n`;
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
