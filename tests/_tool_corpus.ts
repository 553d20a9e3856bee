// Catalogs for tool search (lib/code/search.ts): star-trek.json of @readme/oas-examples 8.2.2
// served whole, as adr/0072 measured it (120 operations), and synthetic catalogs of any size.
import "npm:@readme/oas-examples@8.2.2/3.0/json/star-trek.json" with { type: "json" };
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";

const CORPUS = new URL(".", import.meta.resolve("npm:@readme/oas-examples@8.2.2/package.json"));

/**
 * star-trek.json's 120 operations as tools, loaded the way a server loads
 * `tools/startrek.openapi.json` beside `tools/startrek.api.json` serving every operation.
 */
export async function starTrekTools(): Promise<readonly Tool[]> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_search_" });
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.copyFile(
      new URL("3.0/json/star-trek.json", CORPUS),
      `${dir}/tools/startrek.openapi.json`,
    );
    await Deno.writeTextFile(
      `${dir}/tools/startrek.api.json`,
      JSON.stringify({ baseUrl: "https://stapi.co/api/v1/rest", operations: ["*"] }),
    );
    const diagnostics = recorder();
    const { tools } = await loadTools(`${dir}/tools`, { diagnostics });
    if (diagnostics.entries.length > 0) {
      throw new Error(`Loading star-trek.json said: ${diagnostics.text()}`);
    }
    return tools;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A tool made from a definition, as a module's default export would be checked. */
export function toolOf(name: string, definition: Record<string, unknown>): Tool {
  return checkDefinition(
    { inputSchema: { type: "object" }, handler: () => ({ content: [] }), ...definition },
    name,
    `tools/${name}.ts`,
  );
}

const VERBS = ["get", "list", "create", "update", "delete", "search", "archive", "export"];
const NOUNS = [
  "invoice",
  "customer",
  "order",
  "shipment",
  "ticket",
  "repository",
  "deployment",
  "calendarEvent",
  "paymentMethod",
  "webhook",
  "subscription",
  "warehouse",
  "userGroup",
  "auditLog",
  "report",
  "document",
  "channel",
  "message",
  "project",
  "milestone",
];
const QUALIFIERS = ["", "Draft", "Archived", "Shared", "Team", "Legacy", "Billing", "Regional"];

/**
 * `count` distinct tools shaped like a generated API's: `<verb>_<noun><qualifier>_<n>`, a
 * two-sentence description, four to seven parameters with descriptions. The same count gives
 * the same tools.
 */
export function syntheticTools(count: number): Tool[] {
  const tools: Tool[] = [];
  for (let i = 0; i < count; i++) {
    const verb = VERBS[i % VERBS.length];
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
    const qualifier = QUALIFIERS[Math.floor(i / (VERBS.length * NOUNS.length)) % QUALIFIERS.length];
    const words = `${noun}${qualifier}`.replace(/(?=[A-Z])/g, " ").toLowerCase().trim();
    const properties: Record<string, unknown> = {};
    for (let p = 0; p < 4 + i % 4; p++) {
      const field = NOUNS[(i + p * 7) % NOUNS.length];
      properties[`${field}Id${p}`] = {
        type: "string",
        description: `The ${field.toLowerCase()} this ${words} belongs to, by its id`,
      };
    }
    tools.push(toolOf(`${verb}_${noun}${qualifier}_${i}`, {
      description: `${verb[0].toUpperCase()}${verb.slice(1)}s a ${words} of the account. ` +
        `Answers with the ${words} as JSON, or an error naming the field at fault.`,
      inputSchema: { type: "object", properties },
    }));
  }
  return tools;
}
