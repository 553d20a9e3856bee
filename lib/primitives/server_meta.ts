// Who a server is, from the one small file a server directory may hold (server.meta.json,
// adr/0049): its name in reverse-DNS form, title, description, version, repository, website,
// icons, author, license and the settings its users give it as environment variables. One
// source for `serverInfo`, the server card (SEP-2127), the registry's `server.json` and an MCP
// Bundle's manifest, so that none of them can contradict another.
//
// The rules are the strictest of the formats it feeds: the registry's schema (2025-12-11) for
// name, description and version, the MCPB manifest for author and version (semver).
import { isObject } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import { didYouMean } from "../util/suggest.ts";
import { checkIcons } from "../schema/mcp_shapes.ts";

import { SERVER_META_FILE, type ServerMeta, type ServerSetting } from "./server_identity.ts";
export { SERVER_META_FILE, type ServerMeta };

/** The registry's name rule (server.schema.json 2025-12-11: pattern, 3–200 characters). */
const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
/** Semantic Versioning 2.0.0, as the MCPB manifest asks of `version`. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The registry's limit on `description` (server.schema.json 2025-12-11). */
const MAX_DESCRIPTION = 100;

const FIELDS = new Set([
  "$schema",
  "name",
  "title",
  "description",
  "version",
  "repository",
  "websiteUrl",
  "icons",
  "author",
  "license",
  "env",
]);
const REPOSITORY_FIELDS = new Set(["url", "source", "subfolder", "id"]);
const AUTHOR_FIELDS = new Set(["name", "email", "url"]);
const SETTING_FIELDS = new Set(["description", "secret", "required", "default"]);

/**
 * Reads the file's text into a ServerMeta, or every problem with it, each a sentence naming
 * the field (`file` names the file in them).
 */
export function parseServerMeta(
  text: string,
  file: string,
): { meta: ServerMeta } | { problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problems: [`"${file}" is not valid JSON: ${(error as Error).message}`] };
  }
  if (!isObject(value)) {
    return { problems: [`"${file}" must hold a JSON object ({ "name", "description", … })`] };
  }
  const problems: string[] = [];
  const say = (field: string, what: string) => problems.push(`"${file}": ${field} ${what}`);
  unknownKeys(value, FIELDS, "", say);

  const text_ = (field: string, max: number, required: boolean): string | undefined => {
    const v = value[field];
    if (v === undefined) {
      if (required) say(field, "is missing");
      return undefined;
    }
    if (typeof v !== "string" || v.trim() === "") say(field, "must be a non-empty string");
    else if (v.length > max) say(field, `is ${v.length} characters, more than ${max}`);
    else return v;
    return undefined;
  };
  const name = text_("name", 200, true);
  if (name !== undefined && (!NAME.test(name) || name.length < 3)) {
    say(
      "name",
      `"${name}" is not in reverse-DNS form with one slash, such as "io.github.alice/weather" ` +
        "(letters, digits, '.', '-' before the slash; also '_' after it)",
    );
  }
  const title = text_("title", 100, false);
  const description = text_("description", MAX_DESCRIPTION, true);
  const version = text_("version", 255, true);
  if (version !== undefined && !SEMVER.test(version)) {
    say("version", `"${version}" is not a semantic version such as "1.0.0" (no ranges)`);
  }
  const websiteUrl = url(value.websiteUrl, "websiteUrl", say);
  const license = text_("license", 100, false);

  let repository: ServerMeta["repository"];
  if (value.repository !== undefined) {
    const r = value.repository;
    if (!isObject(r)) say("repository", 'must be an object ({ "url", "source" })');
    else {
      unknownKeys(r, REPOSITORY_FIELDS, "repository.", say);
      const repoUrl = url(r.url, "repository.url", say);
      if (r.url === undefined) say("repository.url", "is missing");
      const source = typeof r.source === "string" && r.source !== ""
        ? r.source
        : repoUrl !== undefined
        ? sourceOf(repoUrl)
        : undefined;
      if (r.source !== undefined && (typeof r.source !== "string" || r.source === "")) {
        say("repository.source", 'must be a non-empty string such as "github"');
      }
      if (repoUrl !== undefined && source === undefined) {
        say("repository.source", 'is missing (such as "github"; known from github.com URLs)');
      }
      for (const field of ["subfolder", "id"] as const) {
        if (r[field] !== undefined && typeof r[field] !== "string") {
          say(`repository.${field}`, "must be a string");
        }
      }
      if (
        typeof r.subfolder === "string" &&
        (r.subfolder.startsWith("/") || r.subfolder.split("/").some((p) => p === ".."))
      ) {
        say("repository.subfolder", `"${r.subfolder}" must be a relative path inside it`);
      }
      if (repoUrl !== undefined && source !== undefined) {
        repository = dropUndefined({
          url: repoUrl,
          source,
          subfolder: r.subfolder as string | undefined,
          id: r.id as string | undefined,
        });
      }
    }
  }

  let icons: JsonObject[] | undefined;
  if (value.icons !== undefined) {
    const bad = checkIcons(value.icons);
    if (bad !== undefined) say("icons", `are invalid: ${bad}`);
    else icons = value.icons as JsonObject[];
  }

  let author: ServerMeta["author"];
  if (value.author !== undefined) {
    const a = value.author;
    if (!isObject(a)) say("author", 'must be an object ({ "name" })');
    else {
      unknownKeys(a, AUTHOR_FIELDS, "author.", say);
      if (typeof a.name !== "string" || a.name.trim() === "") {
        say("author.name", "must be a non-empty string");
      } else {
        if (a.email !== undefined && (typeof a.email !== "string" || !a.email.includes("@"))) {
          say("author.email", "must be an e-mail address");
        }
        author = dropUndefined({
          name: a.name,
          email: a.email as string | undefined,
          url: url(a.url, "author.url", say),
        });
      }
    }
  }

  const env: Record<string, ServerSetting> = {};
  if (value.env !== undefined) {
    if (!isObject(value.env)) {
      say("env", 'must map variable names to settings ({ "API_KEY": { "description": … } })');
    } else {
      for (const [variable, setting] of Object.entries(value.env)) {
        const at = `env.${variable}`;
        if (!ENV_NAME.test(variable)) {
          say(at, "is not an environment variable name");
          continue;
        }
        if (!isObject(setting)) {
          say(at, 'must be an object ({ "description", "secret", "required" })');
          continue;
        }
        unknownKeys(setting, SETTING_FIELDS, `${at}.`, say);
        if (typeof setting.description !== "string" || setting.description.trim() === "") {
          say(`${at}.description`, "must be a non-empty string (what the user is asked for)");
          continue;
        }
        for (const flag of ["secret", "required"] as const) {
          if (setting[flag] !== undefined && typeof setting[flag] !== "boolean") {
            say(`${at}.${flag}`, "must be true or false");
          }
        }
        if (setting.default !== undefined && typeof setting.default !== "string") {
          say(`${at}.default`, "must be a string");
        }
        env[variable] = dropUndefined({
          description: setting.description,
          secret: setting.secret === true,
          required: setting.required === true,
          default: setting.default as string | undefined,
        });
      }
    }
  }

  if (problems.length > 0) return { problems };
  return {
    meta: dropUndefined({
      name: name!,
      title,
      description: description!,
      version: version!,
      repository,
      websiteUrl,
      icons,
      author,
      license,
      env,
    }),
  };
}

/** The forge a repository URL names, as the registry spells it. */
function sourceOf(repoUrl: string): string | undefined {
  const host = new URL(repoUrl).hostname;
  if (host === "github.com") return "github";
  if (host === "gitlab.com") return "gitlab";
  return undefined;
}

function url(
  value: unknown,
  field: string,
  say: (field: string, what: string) => void,
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && URL.canParse(value)) {
    const protocol = new URL(value).protocol;
    if (protocol === "https:" || protocol === "http:") return value;
  }
  say(field, `must be an http(s) URL, not ${JSON.stringify(value)}`);
  return undefined;
}

function unknownKeys(
  object: JsonObject,
  known: ReadonlySet<string>,
  prefix: string,
  say: (field: string, what: string) => void,
): void {
  for (const key of Object.keys(object)) {
    if (!known.has(key)) say(`${prefix}${key}`, `is not a known field${didYouMean(key, known)}`);
  }
}

function dropUndefined<T extends object>(object: T): T {
  for (const key of Object.keys(object) as (keyof T)[]) {
    if (object[key] === undefined) delete object[key];
  }
  return object;
}
