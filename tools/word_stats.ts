// Structured output: the handler returns a plain object, which the server sends as
// `structuredContent` (checked against `outputSchema`) plus its JSON as a text block.
import type { ToolDefinition } from "@toolshed/toolshed";

interface WordStats {
  characters: number;
  words: number;
  lines: number;
  longestWord: string;
}

export default {
  title: "Word statistics",
  description: "Counts the characters, words and lines of a text and finds its longest word.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The text to measure" } },
    required: ["text"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      characters: { type: "integer", description: "Unicode code points in the text" },
      words: { type: "integer", description: "Runs of letters, digits and apostrophes" },
      lines: { type: "integer", description: "Lines, counting a last line without a newline" },
      longestWord: { type: "string", description: "The first of the longest words" },
    },
    required: ["characters", "words", "lines", "longestWord"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ text }: { text: string }): WordStats => {
    const words = text.match(/[\p{L}\p{N}']+/gu) ?? [];
    const longestWord = words.reduce((best, word) => word.length > best.length ? word : best, "");
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return { characters: [...text].length, words: words.length, lines, longestWord };
  },
} satisfies ToolDefinition<{ text: string }>;
