// The MCP Registry's server.json for a published server (adr/0049): who it is, from
// server.meta.json, one `mcpb` package per bundle (its release URL and SHA-256, stdio, the
// settings as environment variables; no `version`, which the registry refuses on an mcpb package) and, given a public URL, a streamable-http remote. The
// shape is the registry's schema of 2025-12-11 (tests/fixtures/registry/). A server also
// published on npm gets an `npm` package run with npx (adr/0067).
import type { ServerMeta } from "../primitives/server_meta.ts";
import type { JsonObject } from "../util/json.ts";

/** The schema server.json names, and is checked against in the tests. */
export const SERVER_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/** The placeholders a release URL template may hold. */
const PLACEHOLDERS = ["name", "version", "target", "file"] as const;

/** One bundle as server.json lists it. */
export interface Published {
  readonly target: string;
  readonly file: string;
  readonly sha256: string;
}

/** The npm package a server is also published as (`--npm-package NAME[@VERSION]`). */
export interface NpmPackage {
  readonly name: string;
  /** An exact version; server.meta.json's when the flag names none. */
  readonly version: string | undefined;
}

/** npm's rule for a package name: lowercase, URL-safe, optionally @scope/, at most 214. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** An exact semantic version, as the registry requires of a package (no range, no "latest"). */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** `--npm-package NAME[@VERSION]` read, or why it is not an npm package name and version. */
export function parseNpmPackage(text: string): NpmPackage | string {
  const at = text.indexOf("@", 1);
  const name = at === -1 ? text : text.slice(0, at);
  const version = at === -1 ? undefined : text.slice(at + 1);
  const flag = `--npm-package "${text}"`;
  if (name.length > 214 || !NPM_NAME.test(name)) {
    return `${flag} is not an npm package name (lowercase letters, digits, "-", ".", "_" and ` +
      `"~", optionally under an @scope/, as "weather-mcp" or "@alice/weather"${
        name !== name.toLowerCase() && NPM_NAME.test(name.toLowerCase())
          ? `; did you mean ${name.toLowerCase()}?`
          : ""
      })`;
  }
  if (version !== undefined && !EXACT_VERSION.test(version)) {
    return `${flag} names the version "${version}", which is not one exact version (as ` +
      `1.2.3): the registry refuses ranges and "latest"; leave it out to use ` +
      "server.meta.json's version";
  }
  return { name, version };
}

/**
 * The release URL template a server gets without --release-url: its GitHub repository's
 * release asset for tag v{version}; undefined when the repository is not on GitHub.
 */
export function defaultReleaseUrl(meta: ServerMeta): string | undefined {
  const url = meta.repository?.url.replace(/\.git$/, "").replace(/\/+$/, "");
  if (url === undefined || !/^https:\/\/github\.com\/[^/]+\/[^/]+$/.test(url)) return undefined;
  return `${url}/releases/download/v{version}/{file}`;
}

/** `template` with its placeholders filled. */
function releaseUrl(
  template: string,
  values: { name: string; version: string; target: string; file: string },
): string {
  return template.replace(
    /\{(name|version|target|file)\}/g,
    (_, key: keyof typeof values) => encodeURIComponent(values[key]),
  );
}

/**
 * Why `template` cannot give each bundle its own HTTPS URL ending with the bundle's file name
 * (the name of the asset to upload, so that what is uploaded is what server.json names), or
 * undefined. `warn` hears what the registry would refuse later: it accepts mcpb packages only
 * from GitHub or GitLab release assets. (Its other URL rule, that the URL contains "mcp", every
 * such URL meets: a bundle's file name ends with .mcpb.)
 */
export function checkReleaseUrl(
  template: string,
  bundles: readonly { target: string; file: string }[],
  names: { name: string; version: string },
  warn: (text: string) => void,
): string | undefined {
  if (/\{/.test(template.replace(/\{[^{}]*\}/g, ""))) {
    return `--release-url "${template}" has a "{" that is not closed (placeholders are written ` +
      `${PLACEHOLDERS.map((name) => `{${name}}`).join(", ")})`;
  }
  const unknown = [...template.matchAll(/\{([^}]*)\}/g)]
    .map((match) => match[1])
    .filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    return `--release-url "${template}" holds the unknown placeholder(s) ${
      unknown.map((name) => `{${name}}`).join(", ")
    } (known: ${PLACEHOLDERS.map((name) => `{${name}}`).join(", ")})`;
  }
  if (bundles.length > 1 && !/\{(file|target)\}/.test(template)) {
    return `--release-url "${template}" gives every target the same URL: put {file} (or ` +
      "{target}) in it";
  }
  const urls = bundles.map((bundle) => releaseUrl(template, { ...names, ...bundle }));
  let url: URL;
  try {
    url = new URL(urls[0]);
  } catch {
    return `--release-url "${template}" is not a URL (such as ` +
      `"https://github.com/OWNER/REPO/releases/download/v{version}/{file}")`;
  }
  if (url.protocol !== "https:") {
    return `--release-url "${template}" must be an https URL: the registry downloads bundles ` +
      "over HTTPS";
  }
  for (const [i, bundle] of bundles.entries()) {
    if (!urls[i].endsWith(`/${encodeURIComponent(bundle.file)}`)) {
      return `--release-url "${template}" gives ${bundle.file} the URL "${urls[i]}", which does ` +
        `not end with its file name, the name the bundle is uploaded as: end it with /{file}`;
    }
  }
  const github = url.hostname === "github.com" && /^\/[^/]+\/[^/]+\/releases\/download\//
    .test(url.pathname);
  const gitlab = url.hostname === "gitlab.com" && url.pathname.includes("/-/releases/");
  if (!github && !gitlab) {
    warn(
      `toolshed: warning: "${url.origin}${url.pathname}" is not a GitHub or GitLab release ` +
        "asset; the MCP Registry accepts mcpb packages only from those (its server.json " +
        "schema, BinaryPackage, and its mcpb validator)\n",
    );
  }
  return undefined;
}

/**
 * server.json for `meta`, its bundles and, when given, the URL where it is served over HTTP and
 * the npm package it is also published as. No bundles and no npm package: no `packages`.
 */
export function serverJson(
  meta: ServerMeta,
  bundles: readonly Published[],
  template: string,
  publicUrl: string | undefined,
  npm?: NpmPackage,
): JsonObject {
  const environmentVariables = Object.entries(meta.env).map(([name, setting]) => ({
    name,
    description: setting.description,
    isRequired: setting.required,
    isSecret: setting.secret,
    ...setting.default === undefined ? {} : { default: setting.default },
  }));
  const name = meta.name.slice(meta.name.indexOf("/") + 1);
  const packages: JsonObject[] = bundles.map((bundle) => ({
    registryType: "mcpb",
    identifier: releaseUrl(template, {
      name,
      version: meta.version,
      target: bundle.target,
      file: bundle.file,
    }),
    // No `version`: the registry refuses it on an mcpb package ("MCPB packages must not have
    // 'version' field", internal/validators/registries/mcpb.go); the URL carries the version.
    fileSha256: bundle.sha256,
    transport: { type: "stdio" },
    ...environmentVariables.length === 0 ? {} : { environmentVariables },
  }));
  // The registry runs an npm package as `npx NAME@VERSION`, and checks that its package.json
  // names this server ("mcpName"): publish says so.
  if (npm !== undefined) {
    packages.push({
      registryType: "npm",
      identifier: npm.name,
      version: npm.version ?? meta.version,
      runtimeHint: "npx",
      transport: { type: "stdio" },
      ...environmentVariables.length === 0 ? {} : { environmentVariables },
    });
  }
  return {
    $schema: SERVER_SCHEMA,
    name: meta.name,
    ...meta.title === undefined ? {} : { title: meta.title },
    description: meta.description,
    version: meta.version,
    ...meta.repository === undefined ? {} : { repository: { ...meta.repository } },
    ...meta.websiteUrl === undefined ? {} : { websiteUrl: meta.websiteUrl },
    ...meta.icons === undefined ? {} : { icons: meta.icons.map((icon) => ({ ...icon })) },
    ...packages.length === 0 ? {} : { packages },
    ...publicUrl === undefined ? {} : { remotes: [{ type: "streamable-http", url: publicUrl }] },
  };
}
