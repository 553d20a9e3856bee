// One operation as a tool (adr/0072 decisions 3–6): its name, schemas and description as
// fastmcp-ts makes them; annotations from the method and a title from the summary (both
// additions fastmcp-ts lacks); scopes from the operation's `security` when the sidecar says the
// API and toolshed share an authorization server; corrections from the sidecar over all of it.
// Its handler builds the request from the arguments (request.ts), signs it with the operator's
// credentials or a token exchanged for the caller (never the caller's own), and sends it
// (call.ts).
import { isObject, type JsonObject, messageOf } from "../util/json.ts";
import { checkDefinition, type Tool } from "../primitives/tools.ts";
import { refuseUnsafePatterns } from "../schema/pattern_safety.ts";
import type { ToolAnnotations, ToolContext } from "../primitives/types.ts";
import { frontTokenOf, type TokenExchange } from "../primitives/front_token.ts";
import type { OpenApiDocument, Route } from "./document.ts";
import { type OperationSchemas, operationSchemas } from "./schemas.ts";
import { buildRequest } from "./request.ts";
import { callOperation } from "./call.ts";
import type { ApiFile } from "./api_file.ts";
import { correctedDefinition } from "../mounts/corrections.ts";

/** How long one exchange may take at the authorization server (as a mount's, adr/0071). */
const EXCHANGE_DEADLINE_MS = 10_000;

/** What every operation of one document shares. */
interface ApiContext {
  doc: OpenApiDocument;
  api: ApiFile;
  /** The base URL requests are made under. */
  base: URL;
  /** The document as messages show it ("tools/petstore.openapi.yaml"). */
  file: string;
  /** The document's stem: its toolset. */
  stem: string;
  /** The largest 2xx answer body read (`--max-output-bytes`). */
  maxBodyBytes: number;
  /** With `--auth-issuer`: tokens for callers by exchange, when the sidecar's auth asks. */
  exchange?: TokenExchange;
}

/**
 * The annotations a method implies: GET and HEAD change nothing, DELETE destroys, PUT may be
 * repeated; every one reaches a service outside toolshed.
 */
function methodAnnotations(method: string): ToolAnnotations {
  switch (method) {
    case "GET":
    case "HEAD":
      return { readOnlyHint: true, openWorldHint: true };
    case "DELETE":
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
    case "PUT":
      return {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      };
    default:
      return { readOnlyHint: false, destructiveHint: false, openWorldHint: true };
  }
}

/**
 * The tool of `route` named `name`; throws, saying why, when toolshed cannot serve it (a schema
 * it cannot derive, or a pattern that could stall the server: that operation alone is refused).
 */
export async function operationTool(api: ApiContext, route: Route, name: string): Promise<Tool> {
  const schemas = operationSchemas(api.doc, route, { validateOutput: api.api.validateOutput });
  const own = api.api.tools[name];
  const correction = { ...api.api.defaults, ...own };
  const annotations = {
    ...methodAnnotations(route.method),
    ...api.api.defaults.annotations,
    ...own?.annotations,
  };
  const scopes = api.api.scopesFromSecurity ? securityScopes(api.doc, route) : undefined;
  const exchanged = api.api.auth.kind === "exchange";
  const definition = correctedDefinition({
    name,
    title: correction.title ?? route.summary,
    description: correction.description ?? schemas.description,
    inputSchema: schemas.inputSchema,
    outputSchema: schemas.outputSchema,
    annotations,
    scopes: scopes?.length === 0 ? undefined : scopes,
    handler: operationHandler(api, route, schemas),
  }, correction);
  const tool = checkDefinition(definition, name, api.file);
  await refuseUnsafePatterns(tool.definition.inputSchema, "inputSchema");
  if (tool.definition.outputSchema !== undefined) {
    await refuseUnsafePatterns(tool.definition.outputSchema, "outputSchema");
  }
  return exchanged
    ? { ...tool, toolset: api.stem, forwardsIdentity: true }
    : { ...tool, toolset: api.stem };
}

function operationHandler(api: ApiContext, route: Route, schemas: OperationSchemas) {
  const signed = credentialsFor(api.doc, route, api.api.credentials);
  return async (args: Record<string, unknown>, ctx: ToolContext): Promise<JsonObject> => {
    const headers = { ...api.api.headers, ...signed.headers };
    if (api.api.auth.kind === "exchange") {
      const token = await exchangedToken(api, ctx);
      if (typeof token !== "string") return token;
      headers.Authorization = `Bearer ${token}`;
    }
    let request;
    try {
      request = buildRequest(
        api.base,
        route.method,
        route.path,
        args,
        schemas.parameters,
        schemas.body,
        headers,
      );
    } catch (error) {
      return failure(messageOf(error));
    }
    // After the URL check: a key in the query never shows in a refusal the model reads.
    for (const [key, value] of signed.query) request.url.searchParams.append(key, value);
    return await callOperation(request, {
      signal: ctx.signal,
      maxBodyBytes: api.maxBodyBytes,
      wrapResult: schemas.wrapResult,
    });
  };
}

/** The caller's token traded for the API's, or the error result saying why there is none. */
async function exchangedToken(api: ApiContext, ctx: ToolContext): Promise<string | JsonObject> {
  const auth = api.api.auth;
  if (auth.kind !== "exchange") throw new Error("unreachable: no exchange configured");
  const subjectToken = frontTokenOf(ctx);
  if (subjectToken === undefined || api.exchange === undefined) {
    return failure(
      `"${api.api.file}" exchanges the caller's token, and this call has none (the server ` +
        "needs --auth-issuer and an OAuth caller)",
    );
  }
  try {
    return await api.exchange.tokenFor({
      subjectToken,
      audience: auth.audience,
      resource: auth.resource,
      scopes: auth.scopes,
      clientId: auth.clientId,
      clientSecret: auth.clientSecret,
    }, AbortSignal.any([ctx.signal, AbortSignal.timeout(EXCHANGE_DEADLINE_MS)]));
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return failure(`Cannot call the API for this caller: ${messageOf(error)}`);
  }
}

function failure(text: string): JsonObject {
  return { isError: true, content: [{ type: "text", text }] };
}

/** The document's security schemes, by name (refs resolved by the document's own objects). */
function schemes(doc: OpenApiDocument): Record<string, JsonObject> {
  const components = doc.root.components;
  const found = isObject(components) && isObject(components.securitySchemes)
    ? components.securitySchemes
    : {};
  const out: Record<string, JsonObject> = {};
  for (const [name, scheme] of Object.entries(found)) if (isObject(scheme)) out[name] = scheme;
  return out;
}

/**
 * The schemes of the first of the operation's requirements that names some and that the operator
 * has a credential for each of: any one requirement authorizes a request (OpenAPI 3), so the
 * others' secrets stay home. None when no requirement is met.
 */
function requiredSchemes(
  route: Route,
  credentials: Readonly<Record<string, string>>,
): string[] {
  for (const requirement of route.security ?? []) {
    if (!isObject(requirement)) continue;
    const names = Object.keys(requirement);
    if (names.length > 0 && names.every((name) => credentials[name] !== undefined)) return names;
  }
  return [];
}

/**
 * The scopes of the operation's first requirement that names an OAuth 2 or OpenID Connect scheme:
 * a toolshed tool's scopes must all be granted, and the document's alternatives cannot be.
 */
function securityScopes(doc: OpenApiDocument, route: Route): string[] | undefined {
  const known = schemes(doc);
  for (const requirement of route.security ?? []) {
    if (!isObject(requirement)) continue;
    const scopes = new Set<string>();
    let oauth = false;
    for (const [name, wanted] of Object.entries(requirement)) {
      const type = known[name]?.type;
      if (type !== "oauth2" && type !== "openIdConnect") continue;
      oauth = true;
      if (Array.isArray(wanted)) {
        for (const scope of wanted) if (typeof scope === "string") scopes.add(scope);
      }
    }
    if (oauth) return [...scopes];
  }
  return undefined;
}

/**
 * The operator's credentials for the schemes this operation names (the sidecar's `credentials`):
 * an apiKey in a header, the query or a cookie, an http bearer token or basic pair. An operation
 * that names no scheme is sent none of them.
 */
function credentialsFor(
  doc: OpenApiDocument,
  route: Route,
  credentials: Readonly<Record<string, string>>,
): { headers: Record<string, string>; query: [string, string][] } {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  const cookies: string[] = [];
  const known = schemes(doc);
  for (const name of requiredSchemes(route, credentials)) {
    const secret = credentials[name];
    const scheme = known[name];
    if (secret === undefined || scheme === undefined) continue;
    if (scheme.type === "apiKey" && typeof scheme.name === "string") {
      if (scheme.in === "query") query.push([scheme.name, secret]);
      else if (scheme.in === "cookie") cookies.push(`${scheme.name}=${secret}`);
      else headers[scheme.name] = secret;
    } else if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
      headers.Authorization = `Basic ${new TextEncoder().encode(secret).toBase64()}`;
    } else if (scheme.type === "http" || scheme.type === "oauth2") {
      headers.Authorization = `Bearer ${secret}`;
    }
  }
  if (cookies.length > 0) headers.Cookie = cookies.join("; ");
  return { headers, query };
}
