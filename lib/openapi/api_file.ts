// An API's sidecar (adr/0072 decisions 1, 2, 4 and 6): `tools/<stem>.api.json` beside the
// OpenAPI document holds what a document cannot say, checked as a mount's "toolshed" block is
// (adr/0071), with the same `${NAME}` expansion, secret rules, corrections and auth. Pure: the
// environment arrives as a function; what needs the document (names an entry gives that no
// operation has, credentials for schemes) is checked against it once it is read.
//
// Decisions where the ADR is silent:
// - `operations` entries are operationIds or tool names, or "METHOD /path" (a method, spaces, a
//   path starting with "/"), each with "*" (any run, "/" included) and "?" (one character); the
//   method is read in any case and must be one OpenAPI has (or a glob). A literal entry that
//   matches nothing is refused once the document is known, as are `tools` and `names` keys that
//   name no operation, and a `tools` key for an operation that is not served (it would do
//   nothing).
// - A `names` value is the tool name as written: one that fastmcp-ts's slugging or its 56
//   character cap would change is refused naming what it would become, and two operations given
//   one name are refused (fastmcp-ts would silently suffix "_2").
// - Headers toolshed sets from the operation (Content-Type, Accept, Content-Length, Host, Cookie)
//   and hop-by-hop ones (Connection, Transfer-Encoding, Keep-Alive, TE, Trailer, Upgrade,
//   Proxy-*) are refused; a cookie credential goes in `credentials` under the document's apiKey
//   scheme.
// - `credentials` values are secrets whatever the scheme's name: each must use `${…}` (a literal
//   part beside it, as in "me:${PASSWORD}", is allowed), without a literal default.
import { didYouMean } from "../util/suggest.ts";
import { isObject, type JsonObject } from "../util/json.ts";
import { PRIMITIVE_NAME } from "../primitives/json_wire.ts";
import {
  authOf,
  CORRECTION_KEYS,
  correctionOf,
  type MountAuth,
  type ToolCorrection,
  toolCorrectionOf,
} from "../mounts/corrections.ts";
import { type Env, expand, refuseLiteralSecret } from "../mounts/env_values.ts";
import { isGlob, namesMatch } from "../mounts/globs.ts";
import { remoteUrl, staticHeaders } from "../mounts/remote.ts";
import type { OpenApiDocument, Route } from "./document.ts";
import { HOP_BY_HOP } from "./request.ts";
import { API_SUFFIX } from "./file_names.ts";
import { NAME_CAP, slugify, toolNames } from "./names.ts";

/** A sidecar, read and checked; `API_DEFAULTS` when the document has none. */
export interface ApiFile {
  /** As shown in messages ("tools/petstore.api.json"); undefined: no sidecar. */
  file: string | undefined;
  /** Absolute, https: or loopback http:, no userinfo; undefined: the document's servers[0]. */
  baseUrl: string | undefined;
  /** Which operations to serve: operationIds, tool names or "METHOD /path" (globs * and ?);
   *  undefined: curated (GET and HEAD only). */
  operations: string[] | undefined;
  /** operationId → tool name (fastmcp-ts's `names` option). */
  names: Record<string, string>;
  /** Top-level correction fields (scopes, rateLimit, timeoutMs, task, jobAfterMs, jobReuseMs,
   *  annotations) for every tool. */
  defaults: ToolCorrection;
  /** By tool name: title, description and the correction fields. */
  tools: Record<string, ToolCorrection>;
  /** Default true. */
  validateOutput: boolean;
  /** Static headers sent with every request, `${…}` expanded; secret-named ones must be `${…}`. */
  headers: Record<string, string>;
  /** A security scheme's name in the document → its secret (`${…}` only, never literal):
   *  an apiKey (header/query/cookie by the scheme), http bearer (the token) or http basic
   *  ("user:password"). Applied by the coordinator's code to operations requiring the scheme. */
  credentials: Record<string, string>;
  /** none, or RFC 8693 exchange per caller (same shape and checks as a mount's auth). */
  auth: MountAuth;
  /** Default false: when true, an operation's oauth2/openIdConnect scopes become its tool's. */
  scopesFromSecurity: boolean;
}

/** What an API without a sidecar (or with `{}`) is served with. */
export const API_DEFAULTS: ApiFile = Object.freeze({
  file: undefined,
  baseUrl: undefined,
  operations: undefined,
  names: Object.freeze({}),
  defaults: Object.freeze({}),
  tools: Object.freeze({}),
  validateOutput: true,
  headers: Object.freeze({}),
  credentials: Object.freeze({}),
  auth: Object.freeze({ kind: "none" as const }),
  scopesFromSecurity: false,
});

const API_KEYS = [
  "baseUrl",
  "operations",
  "names",
  "tools",
  "validateOutput",
  "headers",
  "credentials",
  "auth",
  "scopesFromSecurity",
  ...CORRECTION_KEYS,
];
/** OpenAPI 3's operations, upper case. */
const METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"];
const CURATED = new Set(["GET", "HEAD"]);

const EXAMPLE = '{"baseUrl": "https://api.example.com/v1", "operations": ["GET /pets/*", ' +
  '"createPet"], "headers": {"X-Api-Key": "${PETSTORE_KEY}"}}';

/** Reads a sidecar's text, or throws one sentence naming the problem (without the file). */
export function parseApiFile(text: string, file: string, env: Env): ApiFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`the file is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new Error(`the file must be a JSON object, such as ${EXAMPLE}`);
  checkKeys(value);
  const api: ApiFile = {
    file,
    baseUrl: undefined,
    operations: value.operations === undefined ? undefined : operationsOf(value.operations),
    names: namesOf(value.names),
    defaults: correctionOf(value, "", false),
    tools: toolsOf(value.tools),
    validateOutput: flag(value, "validateOutput", true),
    headers: value.headers === undefined ? {} : staticHeaders(value.headers, env, ownHeader),
    credentials: credentialsOf(value.credentials, env),
    auth: authOf(value.auth, env, "auth"),
    scopesFromSecurity: flag(value, "scopesFromSecurity", false),
  };
  if (value.baseUrl !== undefined) {
    if (typeof value.baseUrl !== "string" || value.baseUrl === "") {
      throw new Error('baseUrl must be a non-empty string, e.g. "https://api.example.com/v1"');
    }
    api.baseUrl = remoteUrl(value.baseUrl, "baseUrl", env, "headers, credentials and answers")
      .href;
  }
  if (api.auth.kind === "exchange") {
    const own = Object.keys(api.headers).find((name) => name.toLowerCase() === "authorization");
    if (own !== undefined) {
      throw new Error(
        `headers has "${own}" and auth is "exchange", which sets it per caller: keep one`,
      );
    }
  }
  return api;
}

/** Whether the sidecar (or the curated default: GET and HEAD) serves the operation named `name`. */
export function operationSelected(api: ApiFile, route: Route, name: string): boolean {
  if (api.operations === undefined) return CURATED.has(route.method.toUpperCase());
  return api.operations.some((entry) => entryMatches(entry, route, name));
}

/** Sentences for entries that would do nothing: an `operations` entry without a wildcard that
 *  matches no operation, a `tools` key or `names` key naming no operation (with didYouMean), a
 *  `tools` key for an operation not served, a `names` value another operation's tool has. */
export function unmatchedEntries(
  api: ApiFile,
  routes: readonly Route[],
  names: readonly string[],
): string[] {
  const found: string[] = [];
  const operationIds = routes.flatMap((route) => route.operationId ?? []);
  const selectors = [
    ...operationIds,
    ...names,
    ...routes.map((route) => `${route.method} ${route.path}`),
  ];
  for (const entry of api.operations ?? []) {
    if (isGlob(entry) || routes.some((route, i) => entryMatches(entry, route, names[i]))) continue;
    found.push(
      `operations has "${entry}", which matches no operation of the document` +
        didYouMean(entry, selectors),
    );
  }
  for (const name of Object.keys(api.tools)) {
    const index = names.indexOf(name);
    const byId = routes.findIndex((route) => route.operationId === name);
    if (index === -1 && byId !== -1) {
      found.push(
        `tools has "${name}", an operationId whose tool is named "${names[byId]}": key the ` +
          "entry by the tool name",
      );
    } else if (index === -1) {
      found.push(
        `tools has "${name}", which is no operation's tool name` + didYouMean(name, names),
      );
    } else if (!operationSelected(api, routes[index], name)) {
      const route = routes[index];
      found.push(
        `tools has "${name}" ("${route.method} ${route.path}"), an operation not served, so ` +
          "the entry would do nothing: " + (api.operations === undefined
            ? 'without "operations" only GET and HEAD are served; list it in "operations"'
            : 'add it to "operations"'),
      );
    }
  }
  for (const [operationId, name] of Object.entries(api.names)) {
    if (!operationIds.includes(operationId)) {
      found.push(
        `names has "${operationId}", which is no operation's operationId` +
          didYouMean(operationId, operationIds),
      );
      continue;
    }
    const other = routes.find((route) =>
      route.operationId !== operationId && toolNames([route], api.names)[0] === name
    );
    if (other === undefined) continue;
    found.push(
      `names gives "${name}" to "${operationId}" and "${other.method} ${other.path}" is named ` +
        `"${name}" too, so one of them would become "${name}_2": give another name`,
    );
  }
  return found;
}

/**
 * Sentences for `credentials` the document cannot use: a name that is none of its security
 * schemes, a scheme toolshed cannot send (apiKey, http bearer or basic, and oauth2 it can), a
 * basic credential without ":", and one sent as Authorization beside an `auth` exchange.
 */
export function credentialProblems(api: ApiFile, doc: OpenApiDocument): string[] {
  const components = doc.root.components;
  const schemes = isObject(components) && isObject(components.securitySchemes)
    ? components.securitySchemes
    : {};
  const problems: string[] = [];
  for (const [name, secret] of Object.entries(api.credentials)) {
    const scheme = schemes[name];
    const where = `credentials "${name}"`;
    if (!isObject(scheme)) {
      problems.push(
        `${where} names no security scheme of the document` +
          didYouMean(name, Object.keys(schemes)),
      );
      continue;
    }
    const type = String(scheme.type);
    const httpScheme = type === "http" ? String(scheme.scheme).toLowerCase() : undefined;
    if (type !== "apiKey" && type !== "http" && type !== "oauth2") {
      problems.push(
        `${where} is for a "${type}" scheme, which toolshed cannot send (apiKey, http and ` +
          "oauth2 it can)",
      );
    } else if (httpScheme !== undefined && httpScheme !== "bearer" && httpScheme !== "basic") {
      problems.push(
        `${where} is for the http scheme "${String(scheme.scheme)}", which toolshed cannot ` +
          "send (bearer and basic it can)",
      );
    } else if (httpScheme === "basic" && !secret.includes(":")) {
      problems.push(
        `${where} is for the http basic scheme and holds no ":" once expanded: write ` +
          '"user:password", e.g. "${API_USER}:${API_PASSWORD}"',
      );
    } else if (api.auth.kind === "exchange" && sentAsAuthorization(scheme)) {
      problems.push(
        `${where} is sent as Authorization and auth is "exchange", which sets it per caller: ` +
          "keep one",
      );
    }
  }
  return problems;
}

function sentAsAuthorization(scheme: JsonObject): boolean {
  if (scheme.type === "http" || scheme.type === "oauth2") return true;
  return scheme.in === "header" && String(scheme.name).toLowerCase() === "authorization";
}

// ---- the file's fields ----

function checkKeys(value: JsonObject): void {
  for (const key of Object.keys(value)) {
    if (key === "openapi" || key === "swagger" || key === "paths") {
      throw new Error(
        `the file has "${key}", so it is an API description, not a sidecar: name it ` +
          `"<stem>.openapi.json" (the sidecar "<stem>${API_SUFFIX}" says what the document cannot)`,
      );
    }
    if (key === "title" || key === "description") {
      throw new Error(
        `${key} would give every tool the same ${key}: put it under ` +
          `"tools": {"<tool name>": {"${key}": …}}`,
      );
    }
    if (!API_KEYS.includes(key)) {
      throw new Error(
        `the file has "${key}", which is not one of its fields (${API_KEYS.join(", ")})` +
          didYouMean(key, API_KEYS),
      );
    }
  }
}

function flag(value: JsonObject, key: string, fallback: boolean): boolean {
  const given = value[key];
  if (given === undefined) return fallback;
  if (typeof given !== "boolean") {
    throw new Error(`${key} must be true or false (the default is ${fallback})`);
  }
  return given;
}

/** "METHOD /path", the method and path apart; undefined for an operationId or tool name. */
function methodAndPath(entry: string): [string, string] | undefined {
  const match = /^(\S+)\s+(\/.*)$/s.exec(entry);
  return match === null ? undefined : [match[1].toUpperCase(), match[2]];
}

function entryMatches(entry: string, route: Route, name: string): boolean {
  const split = methodAndPath(entry);
  if (split !== undefined) {
    return namesMatch([split[0]], route.method.toUpperCase()) && namesMatch([split[1]], route.path);
  }
  return namesMatch([entry], name) ||
    (route.operationId !== undefined && namesMatch([entry], route.operationId));
}

function operationsOf(value: unknown): string[] {
  if (
    !Array.isArray(value) || value.length === 0 ||
    !value.every((entry) => typeof entry === "string" && entry.trim() !== "")
  ) {
    throw new Error(
      "operations must be a non-empty list of operationIds, tool names or " +
        '"METHOD /path" (globs "*" and "?"), e.g. ["GET /pets/*", "createPet"]; leave it out ' +
        "to serve GET and HEAD only",
    );
  }
  for (const entry of value as string[]) {
    const split = methodAndPath(entry);
    if (split === undefined || isGlob(split[0]) || METHODS.includes(split[0])) continue;
    throw new Error(
      `operations has "${entry}", whose method "${split[0]}" is not one of OpenAPI's ` +
        `(${METHODS.join(", ")})` + didYouMean(split[0], METHODS),
    );
  }
  return [...value] as string[];
}

function namesOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    throw new Error('names must be an object by operationId, e.g. {"listPets": "pets_index"}');
  }
  const names: Record<string, string> = {};
  const givers = new Map<string, string>();
  for (const [operationId, name] of Object.entries(value)) {
    const where = `names "${operationId}"`;
    if (operationId === "") throw new Error("names has an empty key: a key is an operationId");
    if (typeof name !== "string" || !PRIMITIVE_NAME.test(name)) {
      throw new Error(
        `${where} must be a tool name: 1 to 128 letters, digits, "_", "-" or "."` +
          (typeof name === "string" ? ` (not "${name}")` : ""),
      );
    }
    const made = slugify(name).slice(0, NAME_CAP);
    if (made !== name) {
      throw new Error(
        `${where} gives "${name}", which fastmcp-ts's naming turns into "${made}" (letters, ` +
          `digits and single "_" inside, at most ${NAME_CAP} characters): write "${made}"`,
      );
    }
    const other = givers.get(name);
    if (other !== undefined) {
      throw new Error(`names gives "${name}" to both "${other}" and "${operationId}": keep one`);
    }
    givers.set(name, operationId);
    names[operationId] = name;
  }
  return names;
}

function toolsOf(value: unknown): Record<string, ToolCorrection> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    throw new Error('tools must be an object by tool name, e.g. {"listPets": {"timeoutMs": 5000}}');
  }
  const tools: Record<string, ToolCorrection> = {};
  for (const [name, correction] of Object.entries(value)) {
    const where = `tools "${name}"`;
    if (name === "") throw new Error("tools has an empty key: a key is a tool name");
    tools[name] = toolCorrectionOf(correction, where);
  }
  return tools;
}

/** Headers the operation's parameters and body, or the connection, own; lower case. */
const FROM_OPERATION = new Set(["content-type", "accept", "content-length", "host"]);

function ownHeader(lower: string): string | undefined {
  if (FROM_OPERATION.has(lower)) {
    return "is set by toolshed from the operation (its parameters and body): remove it";
  }
  if (lower === "cookie") {
    return "is made by toolshed from the operation's cookie parameters: give a cookie " +
      'credential in "credentials" under the document\'s apiKey scheme';
  }
  if (HOP_BY_HOP.has(lower)) return "is hop-by-hop, for one connection, not the API: remove it";
  return undefined;
}

function credentialsOf(value: unknown, env: Env): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    throw new Error(
      'credentials must be an object by security scheme name, e.g. {"api_key": "${PETSTORE_KEY}"}',
    );
  }
  const credentials: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    const where = `credentials "${name}"`;
    if (name === "") throw new Error("credentials has an empty key: a key is a security scheme");
    if (typeof raw !== "string" || raw === "") {
      throw new Error(`${where} must be a non-empty string, e.g. "\${API_TOKEN}"`);
    }
    const expanded = expand(raw, where, env);
    refuseLiteralSecret(expanded, raw, where, name);
    if (expanded.text === "") {
      throw new Error(`${where} is empty once expanded: set its variable to the secret`);
    }
    if (/[\r\n\0]/.test(expanded.text)) {
      throw new Error(
        `${where} holds a line break or NUL once expanded, which a request cannot carry`,
      );
    }
    credentials[name] = expanded.text;
  }
  return credentials;
}
