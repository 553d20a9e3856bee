// What a published bundle's manifest lists (adr/0049): the tools and prompts the server serves,
// asked of the server as a client would ask, each prompt's text with its arguments as MCPB
// placeholders.
import { ask } from "./open_server.ts";
import type { Listed } from "./mcpb.ts";
import type { Server } from "../server/create_server.ts";
import { isObject, type JsonObject } from "../util/json.ts";

/** The tools and prompts the loaded server lists, with each prompt's text for the manifest. */
export async function listedBy(server: Server): Promise<Listed> {
  const tools = (await listAll(server, "tools/list", "tools")).map((tool) => ({
    name: String(tool.name),
    ...typeof tool.description === "string" ? { description: tool.description } : {},
  }));
  const prompts: Listed["prompts"][number][] = [];
  for (const prompt of await listAll(server, "prompts/list", "prompts")) {
    const name = String(prompt.name);
    const argumentNames = Array.isArray(prompt.arguments)
      ? prompt.arguments.filter(isObject).map((argument) => String(argument.name))
      : [];
    const description = typeof prompt.description === "string" ? prompt.description : undefined;
    prompts.push({
      name,
      ...description === undefined ? {} : { description },
      arguments: argumentNames,
      text: await promptText(server, name, argumentNames) ?? description ?? name,
    });
  }
  return { tools, prompts };
}

/** Every item of a paginated list (bounded: a server that pages forever is cut off). */
async function listAll(server: Server, method: string, field: string): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page++) {
    const response = await ask(server, method, cursor === undefined ? {} : { cursor });
    const result = response.result;
    if (!isObject(result) || !Array.isArray(result[field])) break;
    items.push(...(result[field] as unknown[]).filter(isObject));
    if (typeof result.nextCursor !== "string") break;
    cursor = result.nextCursor;
  }
  return items;
}

/**
 * The prompt's text messages with `${arguments.NAME}` for each argument, as an MCPB manifest
 * writes a prompt; undefined when the prompt cannot be got that way.
 */
async function promptText(
  server: Server,
  name: string,
  argumentNames: readonly string[],
): Promise<string | undefined> {
  const args = Object.fromEntries(argumentNames.map((arg) => [arg, `\${arguments.${arg}}`]));
  const response = await ask(server, "prompts/get", { name, arguments: args });
  const messages = isObject(response.result) ? response.result.messages : undefined;
  if (!Array.isArray(messages)) return undefined;
  const texts = messages.filter(isObject).map((message) =>
    isObject(message.content) && message.content.type === "text" ? String(message.content.text) : ""
  ).filter((text) => text !== "");
  return texts.length === 0 ? undefined : texts.join("\n\n");
}
