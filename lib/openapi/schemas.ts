// An operation's tool schemas as fastmcp-ts derives them (adr/0072 decision 3, research §3–4),
// with ADR 0072's corrections: the flat input schema and the map from each argument back to its
// place in the request, the output schema (first success answer, `{result}` wrap), the
// description, and `$defs` holding only the component schemas the tool reaches (cycles stay
// `$ref` cycles). Duplicate enum items are removed; a dangling ref or a ref loop is an error for
// the operation, never a silent `{}`.

import type { BodyPlace, ParameterPlace } from "./places.ts";
import { canonicalJson, isObject, type JsonObject } from "../util/json.ts";
import { type OpenApiDocument, pointerTarget, resolved, type Route } from "./document.ts";

/** What one operation advertises and how its arguments map back. */
export interface OperationSchemas {
  inputSchema: JsonObject;
  outputSchema: JsonObject | undefined;
  wrapResult: boolean;
  /** By flat argument name. */
  parameters: Record<string, ParameterPlace>;
  body: BodyPlace | undefined;
  description: string;
}

const COMPONENT = "#/components/schemas/";
const DEFS = "#/$defs/";
const WRAP = "x-fastmcp-wrap-result";
const TOP_LEVEL = "x-fastmcp-top-level-schema";

/** Derives one operation's schemas; throws an Error naming the problem when toolshed cannot serve it. */
export function operationSchemas(
  doc: OpenApiDocument,
  route: Route,
  options: { validateOutput: boolean },
): OperationSchemas {
  if (route.problem !== undefined) throw new Error(route.problem);
  try {
    return derive(doc, route, options);
  } catch (error) {
    throw new Error(`${route.method} ${route.path}: ${(error as Error).message}`);
  }
}

function derive(
  doc: OpenApiDocument,
  route: Route,
  options: { validateOutput: boolean },
): OperationSchemas {
  const defs = componentDefs(doc);
  const input = inputOf(doc, route, defs);
  const output = outputOf(doc, route, defs, options.validateOutput);
  return {
    inputSchema: input.schema,
    outputSchema: output.schema,
    wrapResult: output.wrap,
    parameters: input.parameters,
    body: input.body,
    description: route.description || route.summary || `Executes ${route.method} ${route.path}`,
  };
}

// ---- refs and component definitions ----

type Defs = Map<string, JsonObject | Error>;
const defsCache = new WeakMap<OpenApiDocument, Defs>();

/** Every component schema with its refs rewritten, or the error its refs make. */
function componentDefs(doc: OpenApiDocument): Defs {
  const cached = defsCache.get(doc);
  if (cached !== undefined) return cached;
  const defs: Defs = new Map();
  const components = isObject(doc.root.components) && isObject(doc.root.components.schemas)
    ? doc.root.components.schemas
    : {};
  for (const [name, raw] of Object.entries(components)) {
    try {
      defs.set(name, localSchema(doc, raw));
    } catch (error) {
      defs.set(name, new Error(`the component schema "${name}": ${(error as Error).message}`));
    }
  }
  defsCache.set(doc, defs);
  return defs;
}

/** A schema (or a ref to one) resolved at its top and copied with refs rewritten to `#/$defs/`. */
function localSchema(doc: OpenApiDocument, raw: unknown): JsonObject {
  const top = resolved(doc, raw);
  if (!isObject(top)) return {};
  return rewritten(doc, top, []) as JsonObject;
}

/**
 * A copy with `#/components/schemas/X` refs made `#/$defs/X` (kept as refs, so cycles stay
 * cycles) and any other local ref inlined; a ref naming nothing is an error.
 */
function rewritten(doc: OpenApiDocument, value: unknown, inlining: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => rewritten(doc, item, inlining));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "$ref" && typeof item === "string") continue;
    // Examples, defaults, enums and consts are data, not schemas: copied as they are.
    out[key] = ["example", "examples", "default", "enum", "const"].includes(key)
      ? structuredClone(item)
      : rewritten(doc, item, inlining);
  }
  const ref = value.$ref;
  if (typeof ref !== "string") return out;
  if (ref.startsWith(COMPONENT) && !ref.slice(COMPONENT.length).includes("/")) {
    const name = decodeName(ref.slice(COMPONENT.length));
    if (pointerTarget(doc, ref) === undefined) {
      throw new Error(`the ref "${ref}" names nothing in the document`);
    }
    return { $ref: DEFS + name, ...out };
  }
  if (inlining.includes(ref)) {
    throw new Error(
      `the refs loop without reaching a component schema: "${[...inlining, ref].join('" → "')}"`,
    );
  }
  const target = pointerTarget(doc, ref);
  if (target === undefined) throw new Error(`the ref "${ref}" names nothing in the document`);
  const inlined = rewritten(doc, target, [...inlining, ref]);
  return isObject(inlined) ? { ...inlined, ...out } : inlined;
}

function decodeName(part: string): string {
  try {
    return decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch {
    return part;
  }
}

/** The definition a `#/$defs/` ref names, or an error for one that failed. */
function defOf(defs: Defs, name: string): JsonObject | undefined {
  const def = defs.get(name);
  if (def instanceof Error) throw def;
  return def;
}

/** The names reachable from a schema (discriminator mappings too when asked), transitively. */
function reachable(defs: Defs, from: unknown, needed: Set<string>, mappings: boolean): void {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isObject(value)) return;
    if (typeof value.$ref === "string" && value.$ref.startsWith(DEFS)) {
      add(value.$ref.slice(DEFS.length));
    }
    if (mappings && isObject(value.discriminator) && isObject(value.discriminator.mapping)) {
      for (const target of Object.values(value.discriminator.mapping)) {
        const name = typeof target === "string" ? mappingName(target) : undefined;
        if (name !== undefined) add(name);
      }
    }
    for (const item of Object.values(value)) visit(item);
  };
  const add = (name: string): void => {
    if (needed.has(name) || !defs.has(name)) return;
    needed.add(name);
    visit(defOf(defs, name));
  };
  visit(from);
}

/** A discriminator mapping value's component name: a ref to one, or a bare name. */
function mappingName(target: string): string | undefined {
  for (const prefix of [DEFS, COMPONENT]) {
    if (target.startsWith(prefix)) return target.slice(prefix.length) || undefined;
  }
  return target.startsWith("#") || target.includes("/") || target === "" ? undefined : target;
}

function pick(defs: Defs, needed: Set<string>): JsonObject {
  const out: JsonObject = {};
  for (const name of defs.keys()) {
    if (needed.has(name)) out[name] = structuredClone(defOf(defs, name));
  }
  return out;
}

// ---- input ----

interface Input {
  schema: JsonObject;
  parameters: Record<string, ParameterPlace>;
  body: BodyPlace | undefined;
}

function inputOf(doc: OpenApiDocument, route: Route, defs: Defs): Input {
  const params = route.parameters.map((parameter) => ({
    parameter,
    in: parameter.in as ParameterPlace["in"],
    name: parameter.name as string,
    schema: parameterSchema(doc, parameter),
  }));
  const bodySchemas = (route.requestBody?.schemas ?? []).map((schema) => localSchema(doc, schema));
  const needed = new Set<string>();
  for (const param of params) reachable(defs, param.schema, needed, false);
  for (const schema of bodySchemas) reachable(defs, schema, needed, true);
  const requestDefs = pick(defs, needed);

  let bodySchema: JsonObject = {};
  let bodyProps: JsonObject = {};
  if (route.requestBody !== undefined) {
    bodySchema = bodySchemas[0];
    if (route.requestBody.description && !bodySchema.description) {
      bodySchema.description = route.requestBody.description;
    }
    if (Array.isArray(bodySchema.allOf)) {
      const merged: JsonObject = {};
      const required: string[] = [];
      for (const member of allOfMembers(bodySchema, requestDefs, [])) {
        if (isObject(member.properties)) Object.assign(merged, member.properties);
        if (Array.isArray(member.required)) required.push(...member.required);
      }
      bodySchema.properties = merged;
      if (required.length > 0) bodySchema.required = [...new Set(required)];
      delete bodySchema.allOf;
    }
    const flattened = discriminatorProperties(bodySchema, requestDefs);
    if (flattened !== undefined) {
      bodySchema.properties = flattened;
      delete bodySchema.discriminator;
    }
    bodyProps = isObject(bodySchema.properties) ? bodySchema.properties : {};
  }

  const nonBody = new Set(params.map((param) => param.name));
  const counts = new Map<string, number>();
  for (const param of params) counts.set(param.name, (counts.get(param.name) ?? 0) + 1);
  const colliding = new Set(
    [...nonBody].filter((name) => Object.hasOwn(bodyProps, name) || counts.get(name)! > 1),
  );

  const properties: JsonObject = {};
  const required: string[] = [];
  const parameters: Record<string, ParameterPlace> = {};
  for (const param of params) {
    const schema: JsonObject = { ...param.schema };
    if (param.parameter.description && !schema.description) {
      schema.description = param.parameter.description;
    }
    let argument = param.name;
    if (colliding.has(param.name)) {
      argument = `${param.name}__${param.in}`;
      const where = `(${param.in[0].toUpperCase()}${param.in.slice(1)} parameter)`;
      schema.description = schema.description ? `${schema.description} ${where}` : where;
    }
    if (param.parameter.required === true) required.push(argument);
    properties[argument] = schema;
    parameters[argument] = place(param.parameter, param.schema);
  }

  let body: BodyPlace | undefined;
  if (route.requestBody !== undefined) {
    const encoding = isObject(route.requestBody.media.encoding)
      ? route.requestBody.media.encoding
      : undefined;
    const base = { mediaType: route.requestBody.mediaType, ...(encoding ? { encoding } : {}) };
    if (Object.keys(bodyProps).length > 0) {
      for (const [name, schema] of Object.entries(bodyProps)) properties[name] = schema;
      if (Array.isArray(bodySchema.required)) required.push(...bodySchema.required as string[]);
      body = { ...base, shape: "properties", properties: Object.keys(bodyProps) };
    } else {
      let argument = (typeof bodySchema.title === "string" ? bodySchema.title : "body")
        .toLowerCase()
        .replace(/[^a-zA-Z0-9_]/g, "_");
      if (argument === "" || /^\d/.test(argument)) argument = "body_data";
      properties[argument] = bodySchema;
      if (route.requestBody.required) required.push(argument);
      body = { ...base, shape: "whole", argument };
    }
  }

  const flat: JsonObject = { type: "object", properties, required };
  if (Object.keys(requestDefs).length > 0) flat.$defs = requestDefs;
  const schema = converted(flat, doc.version, { readOnly: true }) as JsonObject;
  // The places read the schemas without OpenAPI's keywords too.
  for (const place of Object.values(parameters)) {
    place.schema = converted(place.schema, doc.version, {}) as JsonObject;
  }
  if (body?.shape === "properties") {
    // A readOnly body property is no argument: the conversion dropped it from the schema.
    const kept = isObject(schema.properties) ? schema.properties : {};
    body.properties = body.properties!.filter((name) => Object.hasOwn(kept, name));
  }
  return { schema, parameters, body };
}

function parameterSchema(doc: OpenApiDocument, parameter: JsonObject): JsonObject {
  if (isObject(parameter.schema) && Object.keys(parameter.schema).length > 0) {
    return localSchema(doc, parameter.schema);
  }
  if (isObject(parameter.content)) {
    const first = Object.values(parameter.content)[0];
    if (isObject(first) && isObject(first.schema) && Object.keys(first.schema).length > 0) {
      return localSchema(doc, first.schema);
    }
  }
  return {};
}

function place(parameter: JsonObject, schema: JsonObject): ParameterPlace {
  const where = parameter.in as ParameterPlace["in"];
  const style = typeof parameter.style === "string"
    ? parameter.style
    : (where === "query" || where === "cookie" ? "form" : "simple");
  return {
    in: where,
    name: parameter.name as string,
    style,
    explode: typeof parameter.explode === "boolean" ? parameter.explode : style === "form",
    allowReserved: parameter.allowReserved === true,
    schema,
  };
}

/** An allOf's members, through refs to definitions (each followed once per chain). */
function allOfMembers(schema: JsonObject, defs: JsonObject, following: string[]): JsonObject[] {
  if (typeof schema.$ref === "string" && schema.$ref.startsWith(DEFS)) {
    const name = schema.$ref.slice(DEFS.length);
    const target = defs[name];
    if (isObject(target) && !following.includes(name)) {
      const { $ref: _, ...siblings } = schema;
      const members = allOfMembers(target, defs, [...following, name]);
      return Object.keys(siblings).length > 0 ? [...members, siblings] : members;
    }
    return [schema];
  }
  if (Array.isArray(schema.allOf)) {
    const members = schema.allOf.filter(isObject).flatMap((member) =>
      allOfMembers(member, defs, following)
    );
    const { allOf: _, ...siblings } = schema;
    return Object.keys(siblings).length > 0 ? [...members, siblings] : members;
  }
  return [schema];
}

/** A mapped discriminator's variants merged in as optional properties, the tag described. */
function discriminatorProperties(schema: JsonObject, defs: JsonObject): JsonObject | undefined {
  const discriminator = schema.discriminator;
  if (!isObject(discriminator) || typeof discriminator.propertyName !== "string") return undefined;
  if (!isObject(discriminator.mapping)) return undefined;
  const tag = discriminator.propertyName;
  const own = isObject(schema.properties) ? schema.properties : {};
  const alternatives = new Map<string, unknown[]>();
  const values: string[] = [];
  const variants: string[] = [];
  for (const [value, target] of Object.entries(discriminator.mapping)) {
    const name = typeof target === "string" ? mappingName(target) : undefined;
    const subtype = name === undefined ? undefined : defs[name];
    if (!isObject(subtype)) continue;
    const fields: string[] = [];
    for (const member of allOfMembers(subtype, defs, [])) {
      for (
        const [field, fieldSchema] of Object.entries(
          isObject(member.properties) ? member.properties : {},
        )
      ) {
        if (Object.hasOwn(own, field)) continue;
        if (!fields.includes(field)) fields.push(field);
        const seen = alternatives.get(field) ?? [];
        if (!seen.some((known) => canonicalJson(known) === canonicalJson(fieldSchema))) {
          seen.push(fieldSchema);
        }
        alternatives.set(field, seen);
      }
    }
    values.push(`'${value}'`);
    if (fields.length > 0) variants.push(`'${value}' uses ${fields.join(", ")}`);
  }
  if (values.length === 0) return undefined;
  const properties: JsonObject = { ...own };
  for (const [field, schemas] of alternatives) {
    properties[field] = schemas.length === 1 ? schemas[0] : { anyOf: schemas };
  }
  let note = `Selects the variant. Accepted values: ${values.join(", ")}.`;
  if (variants.length > 0) {
    note += ` ${variants.join("; ")}. Send only the fields belonging to the selected variant.`;
  }
  const existing = isObject(properties[tag]) ? properties[tag] as JsonObject : { type: "string" };
  properties[tag] = {
    ...existing,
    description: existing.description ? `${existing.description} ${note}` : note,
  };
  return properties;
}

// ---- output ----

const SUCCESS = ["200", "201", "202", "204", "207"];
const JSON_TYPES = [
  "application/json",
  "application/vnd.api+json",
  "application/hal+json",
  "application/ld+json",
  "text/json",
];

function outputOf(
  doc: OpenApiDocument,
  route: Route,
  defs: Defs,
  validate: boolean,
): { schema: JsonObject | undefined; wrap: boolean } {
  const none = { schema: undefined, wrap: false };
  const codes = Object.keys(route.responses);
  const code = SUCCESS.find((known) => codes.includes(known)) ??
    codes.find((key) =>
      /^\s*[+-]?\d+\s*$/.test(key)
        ? Number(key) >= 200 && Number(key) < 300
        : ["default", "2xx"].includes(key.toLowerCase())
    );
  // fastmcp-ts then reads only a 2…-keyed answer: a `default` one gives no output schema.
  if (code === undefined || !code.startsWith("2")) return none;
  const response = resolved(doc, route.responses[code]);
  if (!isObject(response) || !isObject(response.content)) return none;
  const media = Object.entries(response.content);
  const withSchema = media.filter(([, value]) =>
    isObject(value) && isObject(value.schema) && Object.keys(value.schema).length > 0
  );
  const needed = new Set<string>();
  const extracted = new Map<string, JsonObject>();
  for (const [type, value] of withSchema) {
    const raw = (value as JsonObject).schema as JsonObject;
    const schema = localSchema(doc, raw);
    const top = typeof raw.$ref === "string" && raw.$ref.startsWith(COMPONENT)
      ? raw.$ref.split("/").pop()!
      : undefined;
    if (top !== undefined) schema[TOP_LEVEL] = top;
    reachable(defs, schema, needed, false);
    if (top !== undefined && defs.has(top)) {
      needed.add(top);
      reachable(defs, defOf(defs, top), needed, false);
    }
    extracted.set(type, schema);
  }
  const chosen = JSON_TYPES.find((type) => media.some(([known]) => known === type)) ??
    media[0]?.[0];
  const schema = chosen === undefined ? undefined : extracted.get(chosen);
  if (schema === undefined) return none;
  let output = converted(schema, doc.version, { writeOnly: true, formats: true }) as JsonObject;
  const wrap = output.type !== "object";
  if (wrap) {
    output = { type: "object", properties: { result: output }, required: ["result"], [WRAP]: true };
  }
  const responseDefs = pick(defs, needed);
  if (Object.keys(responseDefs).length > 0) {
    output.$defs = Object.fromEntries(
      Object.entries(responseDefs).map((
        [name, def],
      ) => [name, converted(def, doc.version, { writeOnly: true, formats: true })]),
    );
  }
  if (!validate) {
    return {
      schema: { type: "object", additionalProperties: true, ...(wrap ? { [WRAP]: true } : {}) },
      wrap,
    };
  }
  return { schema: output, wrap };
}

// ---- OpenAPI schema → JSON Schema ----

const OPENAPI_ONLY = [
  "nullable",
  "discriminator",
  "readOnly",
  "writeOnly",
  "xml",
  "externalDocs",
  "deprecated",
];

interface Direction {
  readOnly?: boolean;
  writeOnly?: boolean;
  formats?: boolean;
}

/**
 * fastmcp-ts's conversion in its order: 3.0's `nullable` to a null union, `oneOf` to `anyOf`,
 * the discriminator's tag required in each variant, OpenAPI's own keywords dropped, readOnly
 * (inputs) or writeOnly (outputs) properties dropped; then, toolshed's correction, enum items
 * once each.
 */
function converted(schema: unknown, version: "3.0" | "3.1", direction: Direction): unknown {
  if (!isObject(schema)) return schema;
  let out: JsonObject = { ...schema };
  if (version === "3.0") out = nullable(out);
  if ("oneOf" in out) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  if (isObject(out.discriminator) && typeof out.discriminator.propertyName === "string") {
    const tag = out.discriminator.propertyName;
    if (Array.isArray(out.anyOf)) {
      out.anyOf = out.anyOf.map((variant) => {
        if (!isObject(variant)) return variant;
        if (variant.required === undefined || variant.required === null) {
          return { ...variant, required: [tag] };
        }
        if (Array.isArray(variant.required) && !variant.required.includes(tag)) {
          return { ...variant, required: [...variant.required, tag] };
        }
        return variant;
      });
    }
  }
  for (const key of OPENAPI_ONLY) delete out[key];
  if (direction.formats) delete out.format;
  if (Array.isArray(out.enum)) {
    const seen = new Set<string>();
    out.enum = out.enum.filter((item) => {
      const key = canonicalJson(item);
      return seen.has(key) ? false : (seen.add(key), true);
    });
  }
  if (isObject(out.properties) && (direction.readOnly || direction.writeOnly)) {
    const gone = Object.entries(out.properties).filter(([, prop]) =>
      isObject(prop) &&
      ((direction.readOnly && prop.readOnly === true) ||
        (direction.writeOnly && prop.writeOnly === true))
    ).map(([name]) => name);
    if (gone.length > 0) {
      out.properties = Object.fromEntries(
        Object.entries(out.properties).filter(([name]) => !gone.includes(name)),
      );
      if (Array.isArray(out.required)) {
        out.required = out.required.filter((name) => !gone.includes(name as string));
      }
    }
  }
  for (const key of ["properties", "$defs", "$definitions"]) {
    const map = out[key];
    if (isObject(map)) {
      out[key] = Object.fromEntries(
        Object.entries(map).map(([name, sub]) => [name, converted(sub, version, direction)]),
      );
    }
  }
  for (const key of ["items", "additionalProperties", "not"]) {
    if (isObject(out[key])) out[key] = converted(out[key], version, direction);
  }
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((item) => converted(item, version, direction));
  }
  return out;
}

function nullable(schema: JsonObject): JsonObject {
  if (!("nullable" in schema)) return schema;
  const out = { ...schema };
  const on = out.nullable;
  delete out.nullable;
  if (!on) return out;
  if ("type" in out) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type) && !out.type.includes("null")) {
      out.type = [...out.type, "null"];
    }
  } else if (Array.isArray(out.oneOf)) {
    out.anyOf = [...out.oneOf, { type: "null" }];
    delete out.oneOf;
  } else if (Array.isArray(out.anyOf)) {
    if (!out.anyOf.some((item) => isObject(item) && item.type === "null")) {
      out.anyOf = [...out.anyOf, { type: "null" }];
    }
  } else if ("allOf" in out) {
    out.anyOf = [{ allOf: out.allOf }, { type: "null" }];
    delete out.allOf;
  }
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}
