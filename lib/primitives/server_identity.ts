// Who a server is (adr/0049): the shape server.meta.json reads into, and the `Implementation`
// it becomes. Apart from the file's parser (server_meta.ts), which loads only for a directory
// that has the file (adr/0051).
import type { JsonObject } from "../util/json.ts";

/** The file's name in a server directory. */
export const SERVER_META_FILE = "server.meta.json";

/** One setting the server's users give it, as an environment variable. */
export interface ServerSetting {
  /** What the user is asked for. */
  readonly description: string;
  /** A password, key or token: shown masked, stored as a secret. */
  readonly secret: boolean;
  /** The server cannot work without it. */
  readonly required: boolean;
  /** What it is when the user gives nothing. */
  readonly default?: string;
}

export interface ServerMeta {
  /** Reverse-DNS, one slash: `io.github.alice/weather`. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** Semantic version of the server (not of toolshed). */
  readonly version: string;
  readonly repository?: {
    readonly url: string;
    readonly source: string;
    readonly subfolder?: string;
    readonly id?: string;
  };
  readonly websiteUrl?: string;
  readonly icons?: readonly JsonObject[];
  readonly author?: { readonly name: string; readonly email?: string; readonly url?: string };
  readonly license?: string;
  /** The settings, by environment variable name, in the file's order. */
  readonly env: Readonly<Record<string, ServerSetting>>;
}

/** The server's `Implementation`, as `serverInfo` and `_meta` carry it. */
export function implementationOf(meta: ServerMeta): JsonObject {
  return dropUndefinedOf({
    name: meta.name,
    title: meta.title,
    version: meta.version,
    description: meta.description,
    icons: meta.icons as JsonObject[] | undefined,
    websiteUrl: meta.websiteUrl,
  });
}

function dropUndefinedOf<T extends object>(object: T): T {
  for (const key of Object.keys(object) as (keyof T)[]) {
    if (object[key] === undefined) delete object[key];
  }
  return object;
}
