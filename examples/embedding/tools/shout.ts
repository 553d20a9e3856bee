// tools/shout.ts
export default {
  description: "Says the text back in capitals",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
  annotations: { readOnlyHint: true },
  handler: ({ text }: { text: string }) => text.toUpperCase(),
};
