// resources/notes.ts
import type { ResourceTemplateDefinition } from "@toolshed/toolshed";

const NOTES: Record<string, string> = {
  tools: "A tool is one file in tools/ that default-exports { description, inputSchema, handler }.",
  resources: "Files in resources/ are served as they are; modules there define URIs with code.",
  prompts: "A prompt is a Markdown file with front matter, or a module with a get function.",
};

export default {
  uriTemplate: "notes://{topic}",
  description: "A short note about one part of toolshed: tools, resources or prompts",
  mimeType: "text/plain",
  complete: { topic: Object.keys(NOTES) },
  read: ({ topic }) =>
    typeof topic === "string" && Object.hasOwn(NOTES, topic) ? NOTES[topic] : undefined,
} satisfies ResourceTemplateDefinition;
