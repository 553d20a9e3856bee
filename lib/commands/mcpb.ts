// An MCP Bundle (.mcpb, adr/0049): a zip holding manifest.json and the compiled server under
// server/, installed in one click by Claude Desktop. The manifest follows version 0.2 of the
// format, the version the official CLI (`@anthropic-ai/mcpb` 2.1.2) writes by default and
// validates strictly (its 0.3 is marked work in progress, 0.4 experimental). Imported only by
// `toolshed publish`, with fflate, the zip library the official CLI uses.
// Its browser build: the Node build imports node:module (for worker threads the synchronous
// zipSync never uses), which the one-file bundle refuses (build/bundle.ts).
import { zipSync } from "npm:fflate@0.8.2/browser";
import type { ServerMeta } from "../primitives/server_meta.ts";
import type { JsonObject } from "../util/json.ts";
import { closest } from "../util/suggest.ts";

/** The manifest version written (the official CLI's DEFAULT_MANIFEST_VERSION). */
const MANIFEST_VERSION = "0.2";

/** The Deno targets `deno compile --target` takes, and the MCPB platform each one runs on. */
export const TARGETS: Readonly<Record<string, "linux" | "darwin" | "win32">> = {
  "x86_64-unknown-linux-gnu": "linux",
  "aarch64-unknown-linux-gnu": "linux",
  "x86_64-apple-darwin": "darwin",
  "aarch64-apple-darwin": "darwin",
  "x86_64-pc-windows-msvc": "win32",
};

/** Why `target` is no `deno compile --target` toolshed builds for, or undefined. */
export function unknownTarget(target: string): string | undefined {
  if (target in TARGETS) return undefined;
  const meant = closest(target, Object.keys(TARGETS));
  return `Unknown target "${target}"${meant === undefined ? "" : `; did you mean ${meant}?`} ` +
    `(deno compile --target takes ${Object.keys(TARGETS).join(", ")})`;
}

/** What the loaded server lists, for the manifest. */
export interface Listed {
  readonly tools: readonly { name: string; description?: string }[];
  readonly prompts: readonly {
    name: string;
    description?: string;
    arguments: readonly string[];
    /** The prompt's text with `${arguments.NAME}` where each argument goes. */
    text: string;
  }[];
}

/** The short name of a reverse-DNS server name: what follows the slash. */
export function shortName(meta: ServerMeta): string {
  return meta.name.slice(meta.name.indexOf("/") + 1);
}

/** The binary's file name for `target`. */
export function binaryName(meta: ServerMeta, target: string): string {
  return TARGETS[target] === "win32" ? `${shortName(meta)}.exe` : shortName(meta);
}

/** The bundle's file name for `target`. */
export function bundleName(meta: ServerMeta, target: string): string {
  return `${shortName(meta)}-${meta.version}-${target}.mcpb`;
}

/**
 * The manifest of the bundle for `target`. Each setting of server.meta.json becomes a
 * `user_config` entry (`sensitive` when secret) and an environment variable of
 * `mcp_config` set to `${user_config.NAME}`, which Claude Desktop substitutes (an optional one
 * with its default, "" when none is given, so that nothing unsubstituted reaches the server).
 */
export function manifestOf(meta: ServerMeta, listed: Listed, target: string): JsonObject {
  if (meta.author === undefined) throw new Error("an MCP Bundle's manifest needs an author");
  const binary = `server/${binaryName(meta, target)}`;
  const names = Object.keys(meta.env);
  const userConfig: JsonObject = {};
  for (const [name, setting] of Object.entries(meta.env)) {
    userConfig[name] = {
      type: "string",
      title: name,
      description: setting.description,
      required: setting.required,
      ...setting.secret ? { sensitive: true } : {},
      // An optional setting always has a default ("" when the file gives none): with none,
      // Claude Desktop (getMcpConfigForManifest of the official package) leaves the literal
      // `${user_config.NAME}` in the server's environment when the user gives nothing.
      ...setting.default !== undefined
        ? { default: setting.default }
        : setting.required
        ? {}
        : { default: "" },
    };
  }
  return {
    manifest_version: MANIFEST_VERSION,
    name: shortName(meta),
    ...meta.title === undefined ? {} : { display_name: meta.title },
    version: meta.version,
    description: meta.description,
    author: { ...meta.author },
    ...meta.repository === undefined
      ? {}
      : { repository: { type: "git", url: meta.repository.url } },
    ...meta.websiteUrl === undefined ? {} : { homepage: meta.websiteUrl },
    ...meta.license === undefined ? {} : { license: meta.license },
    server: {
      type: "binary",
      entry_point: binary,
      mcp_config: {
        command: `\${__dirname}/${binary}`,
        args: [],
        env: Object.fromEntries(names.map((name) => [name, `\${user_config.${name}}`])),
      },
    },
    tools: listed.tools.map((tool) => ({
      name: tool.name,
      ...tool.description === undefined ? {} : { description: tool.description },
    })),
    prompts: listed.prompts.map((prompt) => ({
      name: prompt.name,
      ...prompt.description === undefined ? {} : { description: prompt.description },
      ...prompt.arguments.length === 0 ? {} : { arguments: [...prompt.arguments] },
      text: prompt.text,
    })),
    compatibility: { platforms: [TARGETS[target]] },
    ...names.length === 0 ? {} : { user_config: userConfig },
  };
}

/** Zip entries are dated 1980-01-01 (zip's epoch), so that the same inputs give the same bytes. */
const ZIP_EPOCH = new Date(1980, 0, 1);

/**
 * The bundle's bytes: manifest.json and the binary, whose Unix mode (rwxr-xr-x, a regular
 * file) rides in the entry's external attributes with "made by Unix", as unzip and the
 * official CLI's unpack read it.
 */
export function zipBundle(
  manifest: JsonObject,
  binaryPath: string,
  binary: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const manifestBytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
  const zipped = zipSync({
    "manifest.json": [manifestBytes, { os: 3, attrs: (0o100644 << 16) >>> 0 }],
    [binaryPath]: [binary, { os: 3, attrs: (0o100755 << 16) >>> 0 }],
  }, { level: 9, mtime: ZIP_EPOCH });
  // fflate allocates plain ArrayBuffers (new Uint8Array(n)), as WebCrypto takes them.
  return zipped as Uint8Array<ArrayBuffer>;
}

/** SHA-256 of `bytes`, lowercase hex (WebCrypto). */
export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
