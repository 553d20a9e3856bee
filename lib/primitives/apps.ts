// MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865, stable 2026-01-26): an HTML
// page served as a `ui://` resource of the extension's MIME type, its CSP and permissions in
// `_meta.ui`, which a tool links to through `_meta.ui.resourceUri`; the host renders it in a
// sandboxed frame and relays its calls back to the server. Every name here is the official
// package's (`@modelcontextprotocol/ext-apps@2.0.4`, `./server` and `spec.types.d.ts`;
// adr/0048). Finding the files is discovery's concern (discovery/ui_dir.ts).
import type { ResourceContext } from "./types.ts";
import { isObject, type JsonObject } from "../util/json.ts";
import type { Resource } from "./resources.ts";
import { type FileReadOptions, readBounded } from "./resource_files.ts";
import { NO_SCOPES } from "./scopes.ts";
import { jsonProblem } from "./json_wire.ts";
import { didYouMean } from "../util/suggest.ts";

/** The extension's identifier, its key under `capabilities.extensions` (`EXTENSION_ID`). */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
/** The MIME type of an app's HTML (`RESOURCE_MIME_TYPE`). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The flat `_meta` key older hosts read, which `registerAppTool` still writes (`RESOURCE_URI_META_KEY`). */
const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri";
/** An app's name: what follows `ui://`, and its file's name before `.html`. */
export const APP_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** The URI of the app `name`. */
function appUri(name: string): string {
  return `ui://${name}`;
}

/** The `McpUiResourceCsp` members, each a list of origins. */
const CSP_FIELDS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];
/** The `McpUiResourcePermissions` members, each `{}`. */
const PERMISSIONS = ["camera", "microphone", "geolocation", "clipboardWrite"];
/** What an app's sidecar (`ui/<name>.json`) may hold: `McpUiResourceMeta`, a title and a description. */
const SIDECAR_FIELDS = new Set([
  "title",
  "description",
  "csp",
  "permissions",
  "domain",
  "prefersBorder",
]);

/** An app's sidecar, checked. */
export interface AppMetadata {
  readonly title?: string;
  readonly description?: string;
  /** The resource's `_meta.ui` (`McpUiResourceMeta`); undefined when it has nothing. */
  readonly ui?: Readonly<JsonObject>;
}

/** A sidecar's contents checked field by field; throws one sentence with the first problem. */
export function checkAppMetadata(value: unknown): AppMetadata {
  if (!isObject(value)) throw new Error("it must hold a JSON object");
  for (const key of Object.keys(value)) {
    if (!SIDECAR_FIELDS.has(key)) {
      throw new Error(`unknown field "${key}"${didYouMean(key, SIDECAR_FIELDS)}`);
    }
  }
  const { title, description, csp, permissions, domain, prefersBorder } = value;
  if (title !== undefined && typeof title !== "string") throw new Error("title must be a string");
  if (description !== undefined && typeof description !== "string") {
    throw new Error("description must be a string");
  }
  const ui: JsonObject = {};
  if (csp !== undefined) {
    if (!isObject(csp)) throw new Error(`csp must be an object of ${CSP_FIELDS.join(", ")}`);
    for (const [key, origins] of Object.entries(csp)) {
      if (!CSP_FIELDS.includes(key)) {
        throw new Error(`csp has an unknown field "${key}"${didYouMean(key, CSP_FIELDS)}`);
      }
      if (!Array.isArray(origins) || !origins.every((origin) => typeof origin === "string")) {
        throw new Error(`csp.${key} must be a list of origins, e.g. ["https://api.example.com"]`);
      }
    }
    ui.csp = csp;
  }
  if (permissions !== undefined) {
    if (!isObject(permissions)) {
      throw new Error(`permissions must be an object of ${PERMISSIONS.join(", ")}, each {}`);
    }
    for (const [key, granted] of Object.entries(permissions)) {
      if (!PERMISSIONS.includes(key)) {
        throw new Error(
          `permissions has an unknown field "${key}"${didYouMean(key, PERMISSIONS)}`,
        );
      }
      if (!isObject(granted)) throw new Error(`permissions.${key} must be {}`);
    }
    ui.permissions = permissions;
  }
  if (domain !== undefined) {
    if (typeof domain !== "string" || domain === "") {
      throw new Error("domain must be a non-empty string (its form is the host's)");
    }
    ui.domain = domain;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== "boolean") throw new Error("prefersBorder must be true or false");
    ui.prefersBorder = prefersBorder;
  }
  const problem = jsonProblem("the sidecar", ui);
  if (problem !== undefined) throw new Error(problem);
  return {
    title: title as string | undefined,
    description: description as string | undefined,
    ui: Object.keys(ui).length > 0 ? Object.freeze(structuredClone(ui)) : undefined,
  };
}

/** The app `name` served from `url`: listed and read with the extension's MIME type and `_meta.ui`. */
export function appResource(
  name: string,
  url: URL,
  metadata: AppMetadata,
  options: FileReadOptions,
): Resource {
  const uri = appUri(name);
  const meta = metadata.ui === undefined ? undefined : Object.freeze({ ui: metadata.ui });
  const listing: JsonObject = { uri, name, mimeType: APP_MIME_TYPE };
  if (metadata.title !== undefined) listing.title = metadata.title;
  if (metadata.description !== undefined) listing.description = metadata.description;
  if (meta !== undefined) listing._meta = meta;
  return Object.freeze({
    uri,
    name,
    listing: Object.freeze(listing),
    timeoutMs: undefined,
    scopes: NO_SCOPES,
    async read(ctx: ResourceContext): Promise<JsonObject[] | undefined> {
      const bytes = await readBounded(url, uri, options, ctx.signal);
      if (bytes === undefined) return undefined;
      // Hosts read `_meta.ui` from the content item first, the listing second (spec.types.d.ts).
      const contents: JsonObject = {
        uri,
        mimeType: APP_MIME_TYPE,
        text: new TextDecoder().decode(bytes),
      };
      if (meta !== undefined) contents._meta = meta;
      return [contents];
    },
  });
}

/** Whether `resource` is an app (a `ui://` resource of the extension's MIME type). */
export function isApp(resource: Resource): boolean {
  return resource.uri.startsWith("ui://") && resource.listing.mimeType === APP_MIME_TYPE;
}

/**
 * A tool definition's `ui` field: the app's name, or throws one sentence. The tool's `_meta`
 * then carries `ui.resourceUri` and the legacy flat key, as `registerAppTool` writes them.
 */
export function checkToolApp(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !APP_NAME.test(value)) {
    throw new Error(
      `ui must be the name of an app in ui/ (ui/<name>.html), e.g. "counter"; got ` +
        JSON.stringify(value),
    );
  }
  return value;
}

/** `meta` with the link to the app `name` (both keys hosts read). */
export function linkedMeta(meta: JsonObject | undefined, name: string): JsonObject {
  const uri = appUri(name);
  const ui = isObject(meta?.ui) ? meta.ui : {};
  return { ...meta, ui: { ...ui, resourceUri: uri }, [LEGACY_RESOURCE_URI_KEY]: uri };
}
