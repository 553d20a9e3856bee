// The tool every contestant serves: its text back as one text block.
export default {
  description: "Returns the given text unchanged",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  handler: ({ text }: { text: string }) => text,
};
