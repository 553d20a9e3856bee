// An OpenAPI 3.0 or 3.1 document (adr/0072 decisions 1 and 7): parsed from JSON or YAML, its
// version checked, its local JSON-pointer refs resolved inside it and never fetched, and its
// operations listed in fastmcp-ts's order.

import { isObject, type JsonObject } from "../util/json.ts";

/** A parsed document: its file, its version line and its root object. */
export interface OpenApiDocument {
  file: string;
  /** "3.0" or "3.1". */
  version: "3.0" | "3.1";
  root: JsonObject;
}

/** One operation's request body: the first media type that has a schema. */
interface RouteBody {
  required: boolean;
  description?: string;
  mediaType: string;
  /** The media type object (its `schema`, `encoding`). */
  media: JsonObject;
  /** Every media type that has a schema, in document order. */
  schemas: JsonObject[];
}

/** One operation, in the form the schema and name rules read. */
export interface Route {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  /** Resolved parameter objects: operation-level then path-level, each name+in once. */
  parameters: JsonObject[];
  requestBody?: RouteBody;
  responses: JsonObject;
  security?: unknown[];
  tags: string[];
  /** Why this operation cannot be served (a ref cycle, a dangling or external ref). */
  problem?: string;
}

/** fastmcp-ts's method order inside a path item. */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Parses a document's text; YAML loads `npm:yaml` only then. */
export async function parseDocument(text: string, file: string): Promise<OpenApiDocument> {
  const trimmed = text.trimStart();
  let root: unknown;
  if (trimmed.startsWith("{")) {
    try {
      root = JSON.parse(text);
    } catch (error) {
      throw new Error(`"${file}" is not valid JSON: ${(error as Error).message}`);
    }
  } else {
    const { parse } = await import("npm:yaml@2.9.1");
    try {
      root = parse(text);
    } catch (error) {
      throw new Error(`"${file}" is not valid YAML: ${(error as Error).message}`);
    }
  }
  if (!isObject(root)) {
    throw new Error(`"${file}" is not an OpenAPI document: its top level is not an object`);
  }
  if (root.swagger !== undefined) {
    throw new Error(
      `"${file}" is Swagger "${
        String(root.swagger)
      }", which toolshed does not read: convert it to OpenAPI 3 with "npx swagger2openapi" (or the Swagger Editor's "Convert to OpenAPI 3")`,
    );
  }
  const openapi = root.openapi;
  const version = typeof openapi === "string" ? /^(3\.[01])\.\d+/.exec(openapi)?.[1] : undefined;
  if (version !== "3.0" && version !== "3.1") {
    throw new Error(
      `"${file}" declares openapi "${
        String(openapi)
      }"; toolshed reads OpenAPI 3.0.x and 3.1.x only`,
    );
  }
  return { file, version, root };
}

/** The value a local ref (`#/…`, RFC 6901, percent-decoded) names, or undefined when it names nothing. */
export function pointerTarget(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith("#")) {
    throw new Error(
      `the external ref "${ref}" is not followed: toolshed resolves only refs inside the document ("#/…")`,
    );
  }
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    throw new Error(`the ref "${ref}" is not a valid URI fragment`);
  }
  if (pointer === "") return doc.root;
  if (!pointer.startsWith("/")) throw new Error(`the ref "${ref}" is not a JSON pointer`);
  let at: unknown = doc.root;
  for (const raw of pointer.slice(1).split("/")) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(part)) at = at[Number(part)];
    else if (isObject(at) && Object.hasOwn(at, part)) at = at[part];
    else return undefined;
  }
  return at;
}

/** Follows `{$ref}` objects until a value that is not one; a loop or a dangling ref is an error naming it. */
export function resolved(doc: OpenApiDocument, value: unknown): unknown {
  const seen: string[] = [];
  let at = value;
  while (isObject(at) && typeof at.$ref === "string") {
    const ref = at.$ref;
    if (seen.includes(ref)) {
      throw new Error(`the refs loop without reaching a value: "${[...seen, ref].join('" → "')}"`);
    }
    seen.push(ref);
    const next = pointerTarget(doc, ref);
    if (next === undefined) throw new Error(`the ref "${ref}" names nothing in the document`);
    at = next;
  }
  return at;
}

/**
 * The document's operations: paths in document order, methods in fastmcp-ts's order. A path item
 * that is no object (or a ref naming nothing, or a loop) stops the document, naming the path: its
 * operations cannot even be listed.
 */
export function routes(doc: OpenApiDocument): Route[] {
  const out: Route[] = [];
  const paths = isObject(doc.root.paths) ? doc.root.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    let item: unknown;
    try {
      item = resolved(doc, rawItem);
    } catch (error) {
      throw new Error(`"${doc.file}": the path "${path}": ${(error as Error).message}`);
    }
    if (!isObject(item)) {
      throw new Error(`"${doc.file}": the path "${path}" is not a path item object`);
    }
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation)) out.push(routeOf(doc, path, method.toUpperCase(), operation, item));
    }
  }
  return out;
}

function routeOf(
  doc: OpenApiDocument,
  path: string,
  method: string,
  op: JsonObject,
  item: JsonObject,
): Route {
  const route: Route = {
    method,
    path,
    parameters: [],
    responses: {},
    tags: Array.isArray(op.tags)
      ? op.tags.filter((tag): tag is string => typeof tag === "string")
      : [],
  };
  if (typeof op.operationId === "string") route.operationId = op.operationId;
  if (typeof op.summary === "string") route.summary = op.summary;
  if (typeof op.description === "string") route.description = op.description;
  const security = Array.isArray(op.security) ? op.security : doc.root.security;
  if (Array.isArray(security)) route.security = security;
  try {
    route.parameters = parametersOf(doc, op.parameters, item.parameters);
    const body = bodyOf(doc, op.requestBody);
    if (body !== undefined) route.requestBody = body;
    const responses = resolved(doc, op.responses);
    if (isObject(responses)) route.responses = responses;
  } catch (error) {
    route.problem = `${method} ${path}: ${(error as Error).message}`;
  }
  return route;
}

function parametersOf(doc: OpenApiDocument, own: unknown, shared: unknown): JsonObject[] {
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  for (
    const raw of [...(Array.isArray(own) ? own : []), ...(Array.isArray(shared) ? shared : [])]
  ) {
    const parameter = resolved(doc, raw);
    if (
      !isObject(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string"
    ) {
      throw new Error(`a parameter has no "name" or "in": ${JSON.stringify(raw)}`);
    }
    if (!["path", "query", "header", "cookie"].includes(parameter.in)) {
      throw new Error(
        `the parameter "${parameter.name}" is in "${parameter.in}", which is not path, query, header or cookie`,
      );
    }
    const key = `${parameter.in}\u0000${parameter.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(parameter);
  }
  return out;
}

function bodyOf(doc: OpenApiDocument, raw: unknown): RouteBody | undefined {
  if (raw === undefined) return undefined;
  const body = resolved(doc, raw);
  if (!isObject(body) || !isObject(body.content)) return undefined;
  let first: [string, JsonObject] | undefined;
  const schemas: JsonObject[] = [];
  for (const [mediaType, media] of Object.entries(body.content)) {
    if (!isObject(media) || !isObject(media.schema) || Object.keys(media.schema).length === 0) {
      continue;
    }
    first ??= [mediaType, media];
    schemas.push(media.schema);
  }
  if (first === undefined) return undefined;
  return {
    required: body.required === true,
    ...(typeof body.description === "string" ? { description: body.description } : {}),
    mediaType: first[0],
    media: first[1],
    schemas,
  };
}
