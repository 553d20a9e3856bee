// TEMPORARY (coordinator's local stand-in until helper's api_file.ts merges; never committed)
import type { Route } from "./document.ts";
import type { ToolAnnotations } from "../primitives/types.ts";
interface ToolCorrection {
  title?: string;
  description?: string;
  annotations?: ToolAnnotations;
  scopes?: string[];
  rateLimit?: string;
  timeoutMs?: number;
  task?: "optional" | "required";
  jobAfterMs?: number;
  jobReuseMs?: number;
}
type MountAuth = { kind: "none" } | {
  kind: "exchange";
  audience: string;
  resource: string | undefined;
  scopes: string[];
  clientId: string;
  clientSecret: string;
};
export interface ApiFile {
  file: string | undefined;
  baseUrl: string | undefined;
  operations: string[] | undefined;
  names: Record<string, string>;
  defaults: ToolCorrection;
  tools: Record<string, ToolCorrection>;
  validateOutput: boolean;
  headers: Record<string, string>;
  credentials: Record<string, string>;
  auth: MountAuth;
  scopesFromSecurity: boolean;
}
export const API_DEFAULTS: ApiFile = {
  file: undefined,
  baseUrl: undefined,
  operations: undefined,
  names: {},
  defaults: {},
  tools: {},
  validateOutput: true,
  headers: {},
  credentials: {},
  auth: { kind: "none" },
  scopesFromSecurity: false,
};
export function parseApiFile(
  text: string,
  file: string,
  _env: (name: string) => string | undefined,
): ApiFile {
  return { ...API_DEFAULTS, ...JSON.parse(text), file };
}
export function operationSelected(api: ApiFile, route: Route, name: string): boolean {
  if (api.operations === undefined) return route.method === "GET" || route.method === "HEAD";
  return api.operations.some((op) =>
    op === name || op === route.operationId || op === `${route.method} ${route.path}` || op === "*"
  );
}
export function unmatchedEntries(
  _api: ApiFile,
  _routes: readonly Route[],
  _names: readonly string[],
): string[] {
  return [];
}
