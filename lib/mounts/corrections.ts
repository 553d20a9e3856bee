// What toolshed's own fields say about a tool it serves from elsewhere (a mounted server's, an
// API's operation): the per-tool corrections and how the remote end is signed in to, read from a
// mount's "toolshed" block (adr/0071) or an API's sidecar (adr/0072) with the same checks.
import { didYouMean } from "../util/suggest.ts";
import { isObject, type JsonObject, MAX_TIMER_MS } from "../util/json.ts";
import { checkScopes } from "../primitives/scopes.ts";
import { checkRateLimit } from "../primitives/rate.ts";
import type { ToolAnnotations } from "../primitives/types.ts";
import { checkAnnotations } from "../schema/mcp_shapes.ts";
import { checkMaxResultChars } from "../primitives/result_size.ts";
import { type Env, expand, refuseLiteralSecret } from "./env_values.ts";

/** Toolshed's own fields, applied to a tool served from elsewhere. */
export interface ToolCorrection {
  title?: string;
  description?: string;
  /** Merged over the tool's own (or derived) annotations. */
  annotations?: ToolAnnotations;
  scopes?: string[];
  rateLimit?: string;
  timeoutMs?: number;
  task?: "optional" | "required";
  jobAfterMs?: number;
  jobReuseMs?: number;
  /** Code in code mode may call it though it is no read (adr/0073 §5). */
  code?: boolean;
  /** Hosts that defer tools keep it loaded: `_meta["anthropic/alwaysLoad"]` (adr/0073 §6). */
  alwaysLoad?: boolean;
  /** The most characters of text one result carries to a client (adr/0073 §6). */
  maxResultChars?: number;
}

/** The correction fields that may apply to every tool (title and description are one tool's). */
export const CORRECTION_KEYS = [
  "annotations",
  "scopes",
  "rateLimit",
  "timeoutMs",
  "task",
  "jobAfterMs",
  "jobReuseMs",
  "code",
  "alwaysLoad",
  "maxResultChars",
];

/**
 * A tool definition of `base` with the correction's fields set over it (title, description and
 * annotations are the caller's to merge), the undefined ones left out: what a mounted tool and an
 * API's operation are checked as.
 */
export function correctedDefinition(base: JsonObject, correction: ToolCorrection): JsonObject {
  const { title: _title, description: _description, annotations: _annotations, ...fields } =
    correction;
  const definition: JsonObject = { ...base };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) definition[key] = value;
  }
  for (const key of Object.keys(definition)) {
    if (definition[key] === undefined) delete definition[key];
  }
  return definition;
}

/** What one tool's entry under "tools" may hold: its title and description, and the corrections. */
const TOOL_KEYS = ["title", "description", ...CORRECTION_KEYS];

/**
 * One tool's entry under "tools" (`where` names it in messages): an object of TOOL_KEYS only,
 * read as a correction with its title and description.
 */
export function toolCorrectionOf(value: unknown, where: string): ToolCorrection {
  if (!isObject(value)) {
    throw new Error(`${where} must be an object of fields (${TOOL_KEYS.join(", ")})`);
  }
  for (const key of Object.keys(value)) {
    if (!TOOL_KEYS.includes(key)) {
      throw new Error(
        `${where} has "${key}", which is not one of its fields (${TOOL_KEYS.join(", ")})` +
          didYouMean(key, TOOL_KEYS),
      );
    }
  }
  return correctionOf(value, where, true);
}

/**
 * The correction fields of `value` (its other keys are the caller's to check); `titled` reads
 * title and description too. Throws a sentence starting with `where: ` (nothing when it is "").
 */
export function correctionOf(value: JsonObject, where: string, titled: boolean): ToolCorrection {
  const correction: ToolCorrection = {};
  const fail = (message: string): never => {
    throw new Error(where === "" ? message : `${where}: ${message}`);
  };
  for (const field of ["title", "description"] as const) {
    const text = value[field];
    if (text === undefined || !titled) continue;
    if (typeof text !== "string" || text.trim() === "") fail(`${field} must be a non-empty string`);
    correction[field] = text as string;
  }
  if (value.annotations !== undefined) {
    const problem = checkAnnotations(value.annotations);
    if (problem !== undefined) fail(`annotations are invalid: ${problem}`);
    correction.annotations = { ...value.annotations as ToolAnnotations };
  }
  try {
    if (value.scopes !== undefined) correction.scopes = [...checkScopes(value.scopes)];
    if (value.rateLimit !== undefined) correction.rateLimit = checkRateLimit(value.rateLimit)!.text;
  } catch (error) {
    fail((error as Error).message);
  }
  for (const [field, least] of [["timeoutMs", 1], ["jobAfterMs", 0], ["jobReuseMs", 1]] as const) {
    const ms = value[field];
    if (ms === undefined) continue;
    if (!(typeof ms === "number" && Number.isInteger(ms) && ms >= least && ms <= MAX_TIMER_MS)) {
      fail(`${field} must be an integer from ${least} to ${MAX_TIMER_MS} (milliseconds)`);
    }
    correction[field] = ms as number;
  }
  if (value.code !== undefined) {
    if (typeof value.code !== "boolean") fail("code must be true or false");
    correction.code = value.code as boolean;
  }
  if (value.alwaysLoad !== undefined) {
    if (typeof value.alwaysLoad !== "boolean") fail("alwaysLoad must be true or false");
    correction.alwaysLoad = value.alwaysLoad as boolean;
  }
  if (value.maxResultChars !== undefined) {
    try {
      correction.maxResultChars = checkMaxResultChars(value.maxResultChars);
    } catch (error) {
      fail((error as Error).message);
    }
  }
  if (value.task !== undefined) {
    if (value.task !== "optional" && value.task !== "required") {
      fail('task must be "optional" or "required"');
    }
    correction.task = value.task as "optional" | "required";
  }
  return correction;
}

/** How the remote end is signed in to: nothing, or a token exchanged per caller (RFC 8693). */
export type MountAuth =
  | { kind: "none" }
  | {
    kind: "exchange";
    audience: string;
    resource: string | undefined;
    scopes: string[];
    clientId: string;
    clientSecret: string;
  };

const AUTH_EXAMPLE = '"none" or {"exchange": {"audience": "https://upstream.example", ' +
  '"clientId": "toolshed", "clientSecret": "${EXCHANGE_SECRET}"}}';
const EXCHANGE_KEYS = ["audience", "resource", "scopes", "clientId", "clientSecret"];

/** The auth field `field` ("toolshed.auth", "auth"): "none", absent, or an exchange. */
export function authOf(value: unknown, env: Env, field: string): MountAuth {
  if (value === undefined || value === "none") return { kind: "none" };
  if (!isObject(value) || Object.keys(value).length !== 1 || !isObject(value.exchange)) {
    throw new Error(`${field} must be ${AUTH_EXAMPLE}`);
  }
  const exchange = value.exchange;
  for (const key of Object.keys(exchange)) {
    if (!EXCHANGE_KEYS.includes(key)) {
      throw new Error(
        `${field}.exchange has "${key}", which is not one of its fields ` +
          `(${EXCHANGE_KEYS.join(", ")})` + didYouMean(key, EXCHANGE_KEYS),
      );
    }
  }
  const text = (key: string, required: boolean): string | undefined => {
    const raw = exchange[key];
    const where = `${field}.exchange.${key}`;
    if (raw === undefined && !required) return undefined;
    if (typeof raw !== "string" || raw === "") {
      throw new Error(`${where} must be a non-empty string`);
    }
    const expanded = expand(raw, where, env);
    if (key === "clientSecret") refuseLiteralSecret(expanded, raw, where, "EXCHANGE_SECRET");
    return expanded.text;
  };
  const resource = text("resource", false);
  if (resource !== undefined) {
    const url = URL.parse(resource);
    if (url === null || url.hash !== "") {
      throw new Error(
        `${field}.exchange.resource "${exchange.resource}" must be an absolute URI without ` +
          "a fragment (RFC 8707)",
      );
    }
  }
  let scopes: string[];
  try {
    scopes = [...checkScopes(exchange.scopes)];
  } catch (error) {
    throw new Error(`${field}.exchange: ${(error as Error).message}`);
  }
  return {
    kind: "exchange",
    audience: text("audience", true)!,
    resource,
    scopes,
    clientId: text("clientId", true)!,
    clientSecret: text("clientSecret", true)!,
  };
}
