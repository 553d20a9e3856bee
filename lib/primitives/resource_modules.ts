// Resources backed by code: a module's default export checked field by field as a fixed
// resource (`uri`) or a template (`uriTemplate`), and what its `read` returns turned into
// checked contents. Which modules there are is discovery's concern (discovery/resources_dir.ts).
import { didYouMean } from "../util/suggest.ts";
import { isObject, type JsonObject, MAX_TIMER_MS, messageOf } from "../util/json.ts";
import {
  checkIcons,
  checkResourceAnnotations,
  checkResourceContents,
} from "../schema/mcp_shapes.ts";
import { base64Length, overLimitError, toBase64, utf8Length } from "./resource_bytes.ts";
import { frozenJson, jsonProblem, kindOf, PRIMITIVE_NAME } from "./json_wire.ts";
import { parseUriTemplate, type UriTemplate } from "./uri_template.ts";
import { checkScopes } from "./scopes.ts";
import type { Resource, ResourceTemplate } from "./resources.ts";
import type { Completer, ResourceContext, UriParams } from "./types.ts";

/** What a module turned out to be: a resource, a template, or the problems that stop it. */
export type ModuleResource =
  | { kind: "resource"; resource: Resource }
  | { kind: "template"; template: ResourceTemplate }
  | { kind: "invalid"; problems: string[] };

/** An absolute URI: a scheme (RFC 3986) and a colon. */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;

const SHARED_FIELDS = [
  "name",
  "title",
  "description",
  "mimeType",
  "annotations",
  "icons",
  "_meta",
  "timeoutMs",
  "scopes",
  "read",
];
/** The fields of a `ResourceDefinition`. */
const RESOURCE_FIELDS: readonly string[] = ["uri", ...SHARED_FIELDS, "size"];
/** The fields of a `ResourceTemplateDefinition`. */
const TEMPLATE_FIELDS: readonly string[] = ["uriTemplate", ...SHARED_FIELDS, "complete"];
/** The fields a listing sends, in the order it sends them (`size` for fixed resources only). */
const LISTED_FIELDS = ["title", "description", "mimeType", "size", "annotations", "icons", "_meta"];

/** The author's definition, once checked: `read` is a function. */
interface Readable {
  read(params: UriParams, ctx: ResourceContext): unknown;
}

/**
 * Checks a module's default export and builds what it defines; every problem found is
 * returned (one sentence each, without the file, which the caller names). `defaultName` is
 * the file name without its extension.
 */
export function resourceFromModule(
  definition: unknown,
  defaultName: string,
  options: { maxResourceBytes: number },
): ModuleResource {
  if (!isObject(definition)) {
    return invalid(
      "the module must default-export a resource object ({ uri, read }) or a resource " +
        "template object ({ uriTemplate, read })",
    );
  }
  const hasUri = definition.uri !== undefined;
  const hasTemplate = definition.uriTemplate !== undefined;
  if (hasUri === hasTemplate) {
    return invalid(
      hasUri
        ? 'it has both "uri" and "uriTemplate": a fixed resource has "uri", a template ' +
          '"uriTemplate", never both'
        : 'it has neither "uri" (a fixed resource) nor "uriTemplate" (a resource template)',
    );
  }
  const fields = hasUri ? RESOURCE_FIELDS : TEMPLATE_FIELDS;
  const problems = commonProblems(definition, fields, hasUri ? "a resource" : "a template");
  const name = definition.name === undefined ? defaultName : definition.name;
  if (definition.name === undefined && !PRIMITIVE_NAME.test(defaultName)) {
    problems.push(
      `the name "${defaultName}" (from the file name) is invalid: use 1 to 128 letters, ` +
        `digits, "_", "-" or ".", or give the resource a name`,
    );
  }
  return hasUri
    ? fixedResource(definition, name as string, problems, options)
    : templateResource(definition, name as string, problems, options);
}

function invalid(problem: string): ModuleResource {
  return { kind: "invalid", problems: [problem] };
}

/** The problems with the fields both kinds share. */
function commonProblems(definition: JsonObject, fields: readonly string[], kind: string): string[] {
  const problems: string[] = [];
  const unknown = Object.keys(definition).filter((key) => !fields.includes(key));
  if (unknown.length > 0) {
    problems.push(
      `unknown field${unknown.length > 1 ? "s" : ""} ${
        unknown.map((key) => `"${key}"`).join(", ")
      }${unknown.length === 1 ? didYouMean(unknown[0], fields) : ""} (${kind} may have ${
        fields.join(", ")
      })`,
    );
  }
  const { name, title, description, mimeType, annotations, icons, _meta, timeoutMs, read } =
    definition;
  if (name !== undefined && typeof name !== "string") problems.push("name must be a string");
  if (typeof name === "string" && !PRIMITIVE_NAME.test(name)) {
    problems.push(`the name "${name}" is invalid: use 1 to 128 letters, digits, "_", "-" or "."`);
  }
  for (
    const [field, value] of [["title", title], ["description", description], [
      "mimeType",
      mimeType,
    ]] as const
  ) {
    if (value !== undefined && typeof value !== "string") {
      problems.push(`${field} must be a string`);
    }
  }
  if (annotations !== undefined) {
    const bad = checkResourceAnnotations(annotations);
    if (bad) problems.push(`annotations are invalid: ${bad}`);
  }
  if (icons !== undefined) {
    const bad = checkIcons(icons);
    if (bad) problems.push(`icons are invalid: ${bad}`);
  }
  if (_meta !== undefined && !isObject(_meta)) problems.push("_meta must be an object");
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0 &&
      (timeoutMs as number) <= MAX_TIMER_MS)
  ) {
    problems.push(`timeoutMs must be an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`);
  }
  if (typeof read !== "function") problems.push("read must be a function");
  try {
    checkScopes(definition.scopes);
  } catch (error) {
    problems.push(messageOf(error));
  }
  for (const field of ["annotations", "icons", "_meta"]) {
    if (definition[field] === undefined) continue;
    const problem = jsonProblem(field, definition[field]);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

/** The listing: the key field, the name, then every wire field the definition has. */
function listingOf(key: [string, string], name: string, definition: JsonObject): JsonObject {
  const listing: JsonObject = { [key[0]]: key[1], name };
  for (const field of LISTED_FIELDS) {
    if (definition[field] !== undefined) listing[field] = definition[field];
  }
  return frozenJson(listing);
}

function fixedResource(
  definition: JsonObject,
  name: string,
  problems: string[],
  options: { maxResourceBytes: number },
): ModuleResource {
  const { uri, size } = definition;
  if (typeof uri !== "string") problems.push("uri must be a string");
  else if (!ABSOLUTE_URI.test(uri) || /\s/.test(uri)) {
    problems.push(
      `uri ${JSON.stringify(uri)} is not an absolute URI: it needs a scheme ("notes:", ` +
        `"file:") and no whitespace`,
    );
  }
  if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 0)) {
    problems.push("size must be a non-negative integer (bytes)");
  }
  if (problems.length > 0) return { kind: "invalid", problems };
  const readable = definition as unknown as Readable;
  const mimeType = definition.mimeType as string | undefined;
  const resource: Resource = {
    uri: uri as string,
    name,
    listing: listingOf(["uri", uri as string], name, definition),
    timeoutMs: definition.timeoutMs as number | undefined,
    scopes: checkScopes(definition.scopes),
    async read(ctx) {
      const value = await readable.read({}, ctx);
      return resourceContents(value, {
        uri: uri as string,
        mimeType,
        maxResourceBytes: options.maxResourceBytes,
      });
    },
  };
  return { kind: "resource", resource: Object.freeze(resource) };
}

function templateResource(
  definition: JsonObject,
  name: string,
  problems: string[],
  options: { maxResourceBytes: number },
): ModuleResource {
  const { uriTemplate, complete } = definition;
  let template: UriTemplate | undefined;
  if (typeof uriTemplate !== "string") problems.push("uriTemplate must be a string");
  else {
    try {
      template = parseUriTemplate(uriTemplate);
    } catch (error) {
      problems.push(
        `uriTemplate ${JSON.stringify(uriTemplate)} is not a valid URI template (RFC 6570): ${
          messageOf(error)
        }`,
      );
    }
  }
  const completers = new Map<string, Completer>();
  if (complete !== undefined && !isObject(complete)) {
    problems.push("complete must be an object of completers by variable name");
  } else if (complete !== undefined) {
    for (const [key, completer] of Object.entries(complete)) {
      if (template !== undefined && !template.variables.includes(key)) {
        problems.push(
          `complete has "${key}", which is not a variable of the template (${
            template.variables.length === 0
              ? "it has none"
              : template.variables.map((variable) => `"${variable}"`).join(", ")
          })`,
        );
      } else if (typeof completer === "function") {
        completers.set(key, completer as Completer);
      } else if (
        Array.isArray(completer) && completer.every((value) => typeof value === "string")
      ) {
        completers.set(key, Object.freeze([...completer]));
      } else {
        problems.push(
          `complete's "${key}" must be a list of strings or a function, not ${kindOf(completer)}`,
        );
      }
    }
  }
  if (problems.length > 0 || template === undefined) return { kind: "invalid", problems };
  const readable = definition as unknown as Readable;
  const mimeType = definition.mimeType as string | undefined;
  const matcher = template;
  const served: ResourceTemplate = {
    name,
    uriTemplate: matcher.text,
    listing: listingOf(["uriTemplate", matcher.text], name, definition),
    timeoutMs: definition.timeoutMs as number | undefined,
    scopes: checkScopes(definition.scopes),
    completers,
    match: (uri) => matcher.match(uri),
    matchNow: (uri) => matcher.matchNow(uri),
    async read(params, ctx) {
      const value = await readable.read(params, ctx);
      return resourceContents(value, {
        uri: ctx.uri,
        mimeType,
        maxResourceBytes: options.maxResourceBytes,
      });
    },
  };
  return { kind: "template", template: Object.freeze(served) };
}

/** The read that produced a value: its URI, the definition's MIME type, the byte limit. */
interface ReadTarget {
  uri: string;
  mimeType: string | undefined;
  maxResourceBytes: number;
}

const CONTENTS_FIELDS = new Set(["uri", "mimeType", "text", "blob", "_meta"]);
const FORMS = "a string, a Uint8Array, a { text } or { blob } object, or a list of them";

/**
 * What `read` returned as checked contents objects, or undefined for undefined or null (no
 * resource at this URI now). Values pass through JSON once, so what is checked is what the
 * client receives. Throws, naming the resource, on anything else, on an empty list and
 * when the contents together are over the byte limit.
 */
function resourceContents(value: unknown, target: ReadTarget): JsonObject[] | undefined {
  if (value === undefined || value === null) return undefined;
  const { uri, mimeType } = target;
  const returned = `Resource "${uri}" returned`;
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) {
    throw new Error(
      `${returned} an empty list: a resource that exists has at least one contents object ` +
        "(return undefined when there is nothing at this URI)",
    );
  }
  const where = (index: number) => Array.isArray(value) ? ` at index ${index}` : "";
  // Measure first, so that nothing over the limit is encoded or copied.
  let bytes = 0;
  items.forEach((item, index) => {
    if (typeof item === "string") bytes += utf8Length(item);
    else if (item instanceof Uint8Array) bytes += item.length;
    else if (isObject(item) && ("text" in item || "blob" in item)) {
      const unknown = Object.keys(item).filter((key) => !CONTENTS_FIELDS.has(key));
      if (unknown.length > 0) {
        throw new Error(
          `${returned} a contents object${where(index)} with unknown field ${
            unknown.map((key) => `"${key}"`).join(", ")
          } (it may have uri, mimeType, text or blob, and _meta)`,
        );
      }
      if ("text" in item && "blob" in item) {
        throw new Error(`${returned} a contents object${where(index)} with both text and blob`);
      }
      if (typeof item.text === "string") bytes += utf8Length(item.text);
      if (item.blob instanceof Uint8Array) bytes += item.blob.length;
      else if (typeof item.blob === "string") {
        const length = base64Length(item.blob);
        if (length === undefined) {
          throw new Error(`${returned} a blob${where(index)} that is not padded base64`);
        }
        bytes += length;
      }
    } else {
      throw new Error(`${returned} ${kindOf(item)}${where(index)}, not ${FORMS}`);
    }
  });
  if (bytes > target.maxResourceBytes) throw overLimitError(uri, bytes, target.maxResourceBytes);
  const drafts = items.map((item) => {
    const base: JsonObject = { uri };
    if (mimeType !== undefined) base.mimeType = mimeType;
    if (typeof item === "string") return { ...base, text: item };
    if (item instanceof Uint8Array) return { ...base, blob: toBase64(item) };
    const object = { ...base, ...definedFields(item as JsonObject) };
    if (object.blob instanceof Uint8Array) object.blob = toBase64(object.blob);
    return object;
  });
  let sent: unknown;
  try {
    sent = JSON.parse(JSON.stringify(drafts));
  } catch (error) {
    throw new Error(
      `${returned} contents that are not JSON: ${messageOf(error).split("\n")[0]}`,
    );
  }
  const contents = sent as JsonObject[];
  contents.forEach((item, index) => {
    const problem = checkResourceContents(item);
    if (problem !== undefined) {
      throw new Error(`${returned} an invalid contents object${where(index)}: ${problem}`);
    }
  });
  return contents;
}

/** The fields of `object` whose values are not undefined (undefined means "not given"). */
function definedFields(object: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
