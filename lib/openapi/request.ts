// The HTTP request of one operation call (adr/0072 decision 5): each argument serialized by its
// parameter's style and explode as OpenAPI 3.0 and 3.1 define them ("Style Values"), the body
// by its media type, and the URL checked to stay on the base URL's origin and under its path,
// whatever values a model sends. Throws an Error naming the operation when it refuses.
import { isObject, type JsonObject } from "../util/json.ts";
import type { BodyPlace, ParameterPlace } from "./places.ts";

/** What callOperation sends: a plain value, so a 307 redirect can send its body again. */
export interface OperationRequest {
  /** `METHOD /template`, for messages. */
  operation: string;
  method: string;
  url: URL;
  headers: Headers;
  body: string | FormData | undefined;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): one connection's, never an API's; lower case. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Headers no argument sets: hop-by-hop ones, the ones fetch or the body decide, and the three
 * OpenAPI 3 says a header parameter "SHALL be ignored" for.
 */
const RESERVED_HEADERS = new Set([
  ...HOP_BY_HOP,
  "host",
  "content-length",
  "cookie",
  "accept",
  "content-type",
  "authorization",
]);

/** Reserved characters RFC 3986 §2.2 lets `allowReserved` keep, all but `#` (a fragment is never sent). */
const KEPT_RESERVED = /%(3A|2F|3F|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g;

/**
 * The request for `method path` with `args`: `parameters` maps each argument name to where it
 * goes, `body` says how the body is made, `headers` are the operator's (never overridden by an
 * argument). Null and undefined arguments are left out.
 */
export function buildRequest(
  base: URL,
  method: string,
  path: string,
  args: Record<string, unknown>,
  parameters: Record<string, ParameterPlace>,
  body: BodyPlace | undefined,
  headers: Record<string, string>,
): OperationRequest {
  const operation = `${method.toUpperCase()} ${path}`;
  const refuse = (why: string) => new Error(`Cannot call "${operation}": ${why}`);
  const pathValues = new Map<string, string>();
  const query: string[] = [];
  const cookies: string[] = [];
  const sent = new Headers();
  for (const [name, value] of Object.entries(headers)) sent.set(name, value);
  for (const [argument, place] of Object.entries(parameters)) {
    const value = args[argument];
    if (value === undefined || value === null) continue;
    const shape = shapeOf(value, place, refuse);
    if (place.in === "path") pathValues.set(place.name, pathText(shape, place));
    else if (place.in === "query") query.push(...queryPairs(shape, place, refuse));
    else if (place.in === "cookie") cookies.push(...cookiePairs(shape, place));
    else {
      const name = place.name.toLowerCase();
      if (RESERVED_HEADERS.has(name) || sent.has(name)) {
        throw refuse(`argument "${argument}" may not set the header "${place.name}"`);
      }
      const text = headerText(shape, place);
      if (/[^\t\x20-\x7e\x80-\xff]/.test(text)) {
        throw refuse(`argument "${argument}" has a character a header cannot carry`);
      }
      sent.set(place.name, text);
    }
  }
  if (cookies.length > 0) sent.set("cookie", withCookies(sent.get("cookie"), cookies, refuse));
  const filled = fillTemplate(path, pathValues, refuse);
  const basePath = base.pathname.replace(/\/+$/, "");
  const built = basePath + filled;
  const search = [base.search.slice(1), ...query].filter((part) => part !== "").join("&");
  const url = new URL(base.origin + built + (search === "" ? "" : `?${search}`));
  for (const segment of filled.split("/")) {
    if (/^(\.|%2e){1,2}$/i.test(segment)) {
      throw refuse(`its path "${filled}" has a "${segment}" segment, which would leave its place`);
    }
  }
  if (url.origin !== base.origin) {
    throw refuse(`its URL "${url.href}" is not on the origin "${base.origin}"`);
  }
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
    throw refuse(`its URL "${url.href}" is not under "${basePath}/"`);
  }
  const content = body === undefined ? undefined : bodyOf(body, args, refuse);
  if (content?.type !== undefined) sent.set("content-type", content.type);
  return { operation, method: method.toUpperCase(), url, headers: sent, body: content?.body };
}

/** A value as style serialization sees it: one text, a list of texts, or named texts. */
type Shape =
  | { kind: "primitive"; text: string }
  | { kind: "array"; items: string[] }
  | { kind: "object"; entries: [string, string][] };

function shapeOf(value: unknown, place: ParameterPlace, refuse: (why: string) => Error): Shape {
  if (Array.isArray(value)) return { kind: "array", items: value.map(itemText) };
  if (isObject(value)) {
    return {
      kind: "object",
      entries: Object.entries(value)
        .filter(([, item]) => item !== undefined && item !== null)
        .map(([key, item]) => [key, itemText(item)]),
    };
  }
  if (["string", "number", "boolean"].includes(typeof value)) {
    return { kind: "primitive", text: String(value) };
  }
  throw refuse(`parameter "${place.name}" has a value of type "${typeof value}"`);
}

/** A list item or an object's member: nested structures (no style defines them) as JSON. */
function itemText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** RFC 3986's unreserved characters kept, everything else percent-encoded. */
function strict(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** A path value: strict, and `.` too, so `..` never becomes a dot segment. */
function segment(text: string): string {
  return strict(text).replaceAll(".", "%2E");
}

function pathText(shape: Shape, place: ParameterPlace): string {
  const { name, explode, style } = place;
  const key = segment(name);
  if (shape.kind === "primitive") {
    const value = segment(shape.text);
    if (style === "label") return `.${value}`;
    if (style === "matrix") return shape.text === "" ? `;${key}` : `;${key}=${value}`;
    return value;
  }
  if (shape.kind === "array") {
    const items = shape.items.map(segment);
    if (style === "label") return `.${items.join(".")}`; // the 3.0.3 and 3.1.0 tables, not RFC 6570's ","

    if (style === "matrix") {
      if (explode && items.length > 0) return items.map((item) => `;${key}=${item}`).join("");
      return items.length === 0 ? `;${key}` : `;${key}=${items.join(",")}`;
    }
    return items.join(",");
  }
  const pairs = shape.entries.map(([k, v]) => [segment(k), segment(v)]);
  if (explode) {
    const assigned = pairs.map(([k, v]) => `${k}=${v}`);
    if (style === "label") return `.${assigned.join(".")}`;
    if (style === "matrix") return assigned.map((pair) => `;${pair}`).join("");
    return assigned.join(",");
  }
  if (style === "label") return `.${pairs.flat().join(".")}`;
  const flat = pairs.flat().join(",");
  if (style === "matrix") return flat === "" ? `;${key}` : `;${key}=${flat}`;
  return flat;
}

const DELIMITERS: Record<string, string> = { form: ",", spaceDelimited: "%20", pipeDelimited: "|" };

function queryPairs(
  shape: Shape,
  place: ParameterPlace,
  refuse: (why: string) => Error,
): string[] {
  const encode = place.allowReserved
    ? (text: string) => strict(text).replace(KEPT_RESERVED, (code) => decodeURIComponent(code))
    : strict;
  return formPairs(shape, place, encode, refuse);
}

/** Query pairs (also a form-urlencoded body's), as `name=value` texts already encoded. */
function formPairs(
  shape: Shape,
  place: Pick<ParameterPlace, "name" | "style" | "explode">,
  encode: (text: string) => string,
  refuse: (why: string) => Error,
): string[] {
  const key = strict(place.name);
  if (shape.kind === "primitive") return [`${key}=${encode(shape.text)}`];
  const delimiter = DELIMITERS[place.style];
  if (shape.kind === "array") {
    if (place.style === "deepObject") {
      throw refuse(`parameter "${place.name}" of style "deepObject" takes an object, not a list`);
    }
    if (place.explode) return shape.items.map((item) => `${key}=${encode(item)}`);
    return [`${key}=${shape.items.map(encode).join(delimiter ?? ",")}`];
  }
  if (place.style === "deepObject") {
    return shape.entries.map(([k, v]) => `${key}[${strict(k)}]=${encode(v)}`);
  }
  if (place.explode) return shape.entries.map(([k, v]) => `${strict(k)}=${encode(v)}`);
  return [`${key}=${shape.entries.flat().map(encode).join(delimiter ?? ",")}`];
}

function headerText(shape: Shape, place: ParameterPlace): string {
  if (shape.kind === "primitive") return shape.text;
  if (shape.kind === "array") return shape.items.join(",");
  if (place.explode) return shape.entries.map(([k, v]) => `${k}=${v}`).join(",");
  return shape.entries.flat().join(",");
}

/** Cookie pairs (form style): values percent-encoded, since `;`, `,` and spaces would split them. */
function cookiePairs(shape: Shape, place: ParameterPlace): string[] {
  const key = strict(place.name);
  if (shape.kind === "primitive") return [`${key}=${strict(shape.text)}`];
  if (shape.kind === "array") {
    if (place.explode) return shape.items.map((item) => `${key}=${strict(item)}`);
    return [`${key}=${shape.items.map(strict).join(",")}`];
  }
  if (place.explode) return shape.entries.map(([k, v]) => `${strict(k)}=${strict(v)}`);
  return [`${key}=${shape.entries.flat().map(strict).join(",")}`];
}

/** The operator's cookies and the arguments', an argument never replacing an operator's. */
function withCookies(
  operator: string | null,
  pairs: string[],
  refuse: (why: string) => Error,
): string {
  const held = new Set(
    (operator ?? "").split(";").map((pair) => pair.split("=")[0].trim()).filter(Boolean),
  );
  for (const pair of pairs) {
    const name = pair.split("=")[0];
    if (held.has(name)) throw refuse(`an argument may not set the cookie "${name}"`);
  }
  return [...(operator === null ? [] : [operator]), ...pairs].join("; ");
}

/** The path with every `{name}` filled, each occurrence of a repeated one too. */
function fillTemplate(
  template: string,
  values: Map<string, string>,
  refuse: (why: string) => Error,
): string {
  const filled = template.replace(/\{([^{}]+)\}/g, (_placeholder, name: string) => {
    const value = values.get(name);
    if (value === undefined) throw refuse(`path parameter "${name}" has no value`);
    return value;
  });
  return filled.startsWith("/") ? filled : `/${filled}`;
}

interface Content {
  body: string | FormData;
  /** The content type to send, undefined where fetch sets it (multipart's boundary). */
  type: string | undefined;
}

function bodyOf(
  place: BodyPlace,
  args: Record<string, unknown>,
  refuse: (why: string) => Error,
): Content | undefined {
  let value: unknown;
  if (place.shape === "whole") {
    value = place.argument === undefined ? undefined : args[place.argument];
    if (value === undefined) return undefined;
  } else {
    const properties: JsonObject = {};
    for (const name of place.properties ?? []) {
      if (args[name] !== undefined) properties[name] = args[name];
    }
    value = properties;
  }
  const mediaType = place.mediaType.split(";")[0].trim().toLowerCase();
  if (isJson(mediaType)) return { body: JSON.stringify(value), type: place.mediaType };
  if (mediaType === "application/x-www-form-urlencoded") {
    if (!isObject(value)) throw refuse(`its "${mediaType}" body must be an object`);
    return { body: urlEncoded(value, place.encoding ?? {}, refuse), type: place.mediaType };
  }
  if (mediaType === "multipart/form-data") {
    if (!isObject(value)) throw refuse(`its "${mediaType}" body must be an object`);
    return { body: multipart(value, place.encoding ?? {}), type: undefined };
  }
  if (typeof value !== "string") {
    throw refuse(`its "${mediaType}" body must be a string, sent as it is`);
  }
  return { body: value, type: place.mediaType };
}

function isJson(mediaType: string): boolean {
  return mediaType === "application/json" || mediaType.endsWith("+json") ||
    mediaType.endsWith("/json");
}

/** Each property's encoding object, when the document gives one. */
function encodingOf(encoding: JsonObject, name: string): JsonObject {
  const found = encoding[name];
  return isObject(found) ? found : {};
}

/**
 * A form-urlencoded body: each property serialized as a query parameter by its encoding's
 * style, explode and allowReserved (form, exploded, by default), or as JSON text when its
 * contentType is a JSON one.
 */
function urlEncoded(
  value: JsonObject,
  encoding: JsonObject,
  refuse: (why: string) => Error,
): string {
  const pairs: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue;
    const how = encodingOf(encoding, name);
    const contentType = typeof how.contentType === "string" ? how.contentType : "";
    const style = typeof how.style === "string" ? how.style : "form";
    const place = {
      in: "query" as const,
      name,
      style,
      explode: typeof how.explode === "boolean" ? how.explode : style === "form",
      allowReserved: how.allowReserved === true,
      schema: {},
    };
    const shape: Shape = isJson(contentType)
      ? { kind: "primitive", text: JSON.stringify(item) }
      : shapeOf(item, place, refuse);
    pairs.push(...queryPairs(shape, place, refuse));
  }
  return pairs.join("&");
}

/**
 * A multipart body: a part per property, a part per item of a list; an object as JSON. A
 * property's encoding `contentType` types its part; encoding `headers` are not sent.
 */
function multipart(value: JsonObject, encoding: JsonObject): FormData {
  const form = new FormData();
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue;
    const how = encodingOf(encoding, name);
    const given = typeof how.contentType === "string" ? how.contentType : undefined;
    const items = Array.isArray(item) ? item : [item];
    for (const one of items) {
      const structured = typeof one === "object" && one !== null;
      const type = given ?? (structured ? "application/json" : undefined);
      const text = structured ? JSON.stringify(one) : String(one);
      if (type === undefined) form.append(name, text);
      else form.append(name, new Blob([text], { type }), name);
    }
  }
  return form;
}
