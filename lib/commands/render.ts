// What `list` and `call` show a person: the protocol's own objects (a Tool, a CallToolResult)
// turned into plain lines. Everything here reads wire JSON only, so what a person sees is
// what a client would have received.
import { isObject, type JsonObject } from "../util/json.ts";

/** One value as a person would type it: strings quoted, the rest as compact JSON. */
export function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/**
 * The schema a `$ref` inside `root` points to (only local `#/…` pointers: toolshed refuses
 * any other at start-up), followed a few times at most so that a cycle cannot hang us.
 */
export function resolved(schema: unknown, root: unknown): JsonObject | undefined {
  let current = schema;
  for (let hops = 0; hops < 8 && isObject(current) && typeof current.$ref === "string"; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith("#")) return undefined;
    let target: unknown = root;
    for (const part of ref.slice(1).split("/").filter((part) => part !== "")) {
      const key = decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~");
      target = isObject(target) ? target[key] : Array.isArray(target) ? target[+key] : undefined;
    }
    current = target;
  }
  return isObject(current) ? current : undefined;
}

/** The JSON types a schema declares (`type`, or those of every `anyOf`/`oneOf` branch). */
export function declaredTypes(schema: unknown, root: unknown): string[] | undefined {
  const node = resolved(schema, root);
  if (node === undefined) return undefined;
  if (typeof node.type === "string") return [node.type];
  if (Array.isArray(node.type)) return node.type.filter((type) => typeof type === "string");
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (!Array.isArray(branches)) return undefined;
  const types = new Set<string>();
  for (const branch of branches) {
    const inner = declaredTypes(branch, root);
    if (inner === undefined) return undefined; // a branch of any type: no declared type
    for (const type of inner) types.add(type);
  }
  return [...types];
}

/** A schema's type in a few words: `integer`, `array of string`, `"a" or "b"`, `any`. */
function typeText(schema: unknown, root: unknown, depth = 0): string {
  const node = resolved(schema, root);
  if (node === undefined) return "any";
  if (Object.hasOwn(node, "const")) return shown(node.const);
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (node.type === undefined && Array.isArray(branches) && depth < 3) {
    return branches.map((branch) => typeText(branch, root, depth + 1)).join(" or ");
  }
  const types = declaredTypes(node, root) ?? [];
  const words = types.map((type) => {
    if (type !== "array" || depth >= 3) return type;
    const items = node.items;
    return items === undefined || items === true
      ? "array"
      : `array of ${typeText(items, root, depth + 1)}`;
  });
  return words.length === 0 ? (Array.isArray(node.enum) ? "enum" : "any") : words.join(" or ");
}

/** What a schema allows beyond its type, in words (`one of …`, `from 0 to 10`, `format email`). */
function constraints(node: JsonObject): string[] {
  const said: string[] = [];
  if (Array.isArray(node.enum)) said.push(`one of ${node.enum.map(shown).join(", ")}`);
  const low = node.minimum ?? node.exclusiveMinimum;
  const high = node.maximum ?? node.exclusiveMaximum;
  if (typeof low === "number" && typeof high === "number") said.push(`from ${low} to ${high}`);
  else if (typeof low === "number") said.push(`${node.minimum === undefined ? ">" : "≥"} ${low}`);
  else if (typeof high === "number") said.push(`${node.maximum === undefined ? "<" : "≤"} ${high}`);
  if (typeof node.minLength === "number" || typeof node.maxLength === "number") {
    said.push(`length ${node.minLength ?? 0} to ${node.maxLength ?? "any"}`);
  }
  if (typeof node.minItems === "number" || typeof node.maxItems === "number") {
    said.push(`${node.minItems ?? 0} to ${node.maxItems ?? "any"} items`);
  }
  if (typeof node.pattern === "string") said.push(`matching /${node.pattern}/`);
  if (typeof node.format === "string") said.push(`format ${node.format}`);
  return said;
}

/**
 * The properties of an object schema, one entry each: `name  type, required, default 3,
 * one of …`, then its description on the next line. Empty when it declares none.
 */
function propertyLines(schema: unknown, root: unknown, indent: string): string[] {
  const node = resolved(schema, root);
  if (node === undefined || !isObject(node.properties)) return [];
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const names = Object.keys(node.properties);
  const width = Math.max(...names.map((name) => name.length));
  const lines: string[] = [];
  for (const name of names) {
    const property = resolved(node.properties[name], root) ?? {};
    const type = typeText(property, root);
    const facts = [
      // An enum of no declared type says all in its "one of".
      ...(type === "enum" ? [] : [type]),
      required.has(name) ? "required" : "optional",
      ...(Object.hasOwn(property, "default") ? [`default ${shown(property.default)}`] : []),
      ...constraints(property),
    ];
    lines.push(`${indent}${name.padEnd(width)}  ${facts.join(", ")}`);
    const about = property.description ?? property.title;
    if (typeof about === "string") lines.push(`${indent}${" ".repeat(width)}  ${oneLine(about)}`);
  }
  return lines;
}

/** A tool of `tools/list` (2026-07-28), for a person; `task` is the server's own setting. */
export function toolText(tool: JsonObject, task?: string, toolset?: string): string {
  const lines = [
    typeof tool.title === "string" && tool.title !== tool.name
      ? `  ${tool.name} (${tool.title})`
      : `  ${tool.name}`,
  ];
  if (typeof tool.description === "string") lines.push(...wrapped(tool.description, "    "));
  if (toolset !== undefined) lines.push(`    Toolset: ${toolset}`);
  const input = tool.inputSchema;
  const parameters = propertyLines(input, input, "      ");
  if (parameters.length > 0) lines.push("    Arguments:", ...parameters);
  else lines.push(`    Arguments: none declared`);
  const output = tool.outputSchema;
  if (output !== undefined) {
    const fields = propertyLines(output, output, "      ");
    lines.push(`    Output: ${typeText(output, output)}${fields.length > 0 ? ":" : ""}`, ...fields);
  }
  if (isObject(tool.annotations)) {
    const hints = Object.entries(tool.annotations).map(([key, value]) => `${key} ${shown(value)}`);
    if (hints.length > 0) lines.push(`    Annotations: ${hints.join(", ")}`);
  }
  if (task !== undefined) {
    lines.push(`    Task: ${task} (may run as a task for clients that declare tasks)`);
  }
  return lines.join("\n");
}

/** A resource or resource template of the list results, for a person. */
export function resourceText(resource: JsonObject, key: "uri" | "uriTemplate"): string {
  const facts = [resource.name, resource.mimeType].filter((fact) => typeof fact === "string");
  const lines = [`  ${resource[key]}${facts.length > 0 ? `  (${facts.join(", ")})` : ""}`];
  if (typeof resource.description === "string") {
    lines.push(...wrapped(resource.description, "    "));
  }
  return lines.join("\n");
}

/** A prompt of `prompts/list`, for a person. */
export function promptText(prompt: JsonObject): string {
  const lines = [
    typeof prompt.title === "string" && prompt.title !== prompt.name
      ? `  ${prompt.name} (${prompt.title})`
      : `  ${prompt.name}`,
  ];
  if (typeof prompt.description === "string") lines.push(...wrapped(prompt.description, "    "));
  const args = Array.isArray(prompt.arguments) ? prompt.arguments.filter(isObject) : [];
  if (args.length === 0) lines.push("    Arguments: none");
  else {
    const width = Math.max(...args.map((arg) => String(arg.name).length));
    lines.push("    Arguments:");
    for (const arg of args) {
      const about = typeof arg.description === "string" ? `, ${oneLine(arg.description)}` : "";
      lines.push(
        `      ${String(arg.name).padEnd(width)}  ${
          arg.required === true ? "required" : "optional"
        }${about}`,
      );
    }
  }
  return lines.join("\n");
}

/** A CallToolResult's content for a person: what `call` prints on stdout. */
export function resultText(result: JsonObject): string {
  const blocks = Array.isArray(result.content) ? result.content.filter(isObject) : [];
  const parts: string[] = [];
  for (const block of blocks) parts.push(blockText(block));
  const hasText = blocks.some((block) => block.type === "text");
  if (!hasText && result.structuredContent !== undefined) {
    parts.unshift(JSON.stringify(result.structuredContent, null, 2));
  }
  return parts.map((part) => part.endsWith("\n") ? part : `${part}\n`).join("");
}

/** The text blocks of a result, joined: what an isError result says. */
export function errorText(result: JsonObject): string {
  const blocks = Array.isArray(result.content) ? result.content.filter(isObject) : [];
  const texts = blocks.filter((block) => block.type === "text").map((block) => String(block.text));
  return texts.length > 0 ? texts.join("\n") : "the result has no text";
}

function blockText(block: JsonObject): string {
  switch (block.type) {
    case "text":
      return String(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${sizeText(block.data)}]`;
    case "resource_link":
      return `[resource link ${block.uri}${
        typeof block.name === "string" ? ` (${block.name})` : ""
      }]`;
    case "resource": {
      const resource = isObject(block.resource) ? block.resource : {};
      const mime = typeof resource.mimeType === "string" ? `, ${resource.mimeType}` : "";
      if (typeof resource.text === "string") {
        return `[resource ${resource.uri}${mime}]\n${resource.text}`;
      }
      return `[resource ${resource.uri}${mime}, ${sizeText(resource.blob)}]`;
    }
    default:
      return `[${String(block.type)} block] ${JSON.stringify(block)}`;
  }
}

/** The size of base64 data once decoded. */
function sizeText(data: unknown): string {
  if (typeof data !== "string") return "no data";
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return `${Math.floor(data.length * 3 / 4) - padding} bytes`;
}

/** A question of an input_required result, for a person. */
export function questionText(key: string, request: unknown): string {
  if (!isObject(request)) return `  ${key}: ${shown(request)}`;
  const params = isObject(request.params) ? request.params : {};
  const lines: string[] = [];
  switch (request.method) {
    case "elicitation/create": {
      lines.push(`  ${key}: asks the user: ${oneLine(String(params.message ?? ""))}`);
      const schema = params.requestedSchema;
      const fields = propertyLines(schema, schema, "      ");
      if (fields.length > 0) lines.push("    for:", ...fields);
      break;
    }
    case "sampling/createMessage": {
      const messages = Array.isArray(params.messages) ? params.messages.filter(isObject) : [];
      lines.push(`  ${key}: asks the model (sampling/createMessage):`);
      for (const message of messages) {
        const content = isObject(message.content)
          ? blockText(message.content)
          : shown(message.content);
        lines.push(`    ${message.role}: ${oneLine(content)}`);
      }
      break;
    }
    case "roots/list":
      lines.push(`  ${key}: asks for the client's roots (roots/list)`);
      break;
    default:
      lines.push(`  ${key}: ${request.method} ${JSON.stringify(params)}`);
  }
  return lines.join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** A description, its own lines kept, each indented. */
function wrapped(text: string, indent: string): string[] {
  return text.trim().split("\n").map((line) => `${indent}${line.trim()}`);
}
