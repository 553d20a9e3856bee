// Resources as the server serves them: a fixed URI or an RFC 6570 template, each with the
// object `resources/list` (or `resources/templates/list`) sends and a reader. Files and
// modules both become these (discovery/resources_dir.ts); the core reads them
// (methods/resources.ts) without knowing which they were.
import type { JsonObject } from "../util/json.ts";
import type { Completer, ResourceContext, UriParams } from "./types.ts";
import type { NOT_READY } from "./uri_template.ts";

/** A resource with one URI. */
export interface Resource {
  readonly uri: string;
  readonly name: string;
  /** The file it came from, as messages show it; a reload keeps it when the file breaks. */
  readonly file?: string;
  /** The `Resource` object lists send, with every field it has (the core drops what an era lacks). */
  readonly listing: Readonly<JsonObject>;
  /** How long one read may run; undefined: the server's default. */
  readonly timeoutMs: number | undefined;
  /** The OAuth scopes a caller's token must grant to read it (primitives/scopes.ts). */
  readonly scopes: readonly string[];
  /**
   * Its contents now, as checked `TextResourceContents`/`BlobResourceContents` objects, or
   * undefined when there is nothing at the URI any more. Rejects when the read fails.
   */
  read(ctx: ResourceContext): Promise<JsonObject[] | undefined>;
}

/** A family of resources under a URI template. */
export interface ResourceTemplate {
  readonly name: string;
  /** As Resource.file. */
  readonly file?: string;
  readonly uriTemplate: string;
  /** The `ResourceTemplate` object `resources/templates/list` sends. */
  readonly listing: Readonly<JsonObject>;
  readonly timeoutMs: number | undefined;
  /** As Resource.scopes, for every URI it produces (and completing its variables). */
  readonly scopes: readonly string[];
  /** Completion sources by variable name. */
  readonly completers: ReadonlyMap<string, Completer>;
  /** The variables of `uri`, or undefined when the template does not produce it. */
  match(uri: string): Promise<UriParams | undefined>;
  /**
   * As match, at once, or NOT_READY while the template library is still loading (it loads
   * at start-up when a template asks for scopes: the check before a read cannot wait).
   */
  matchNow(uri: string): UriParams | undefined | typeof NOT_READY;
  /** As Resource.read, for a URI this template matched. */
  read(params: UriParams, ctx: ResourceContext): Promise<JsonObject[] | undefined>;
}
