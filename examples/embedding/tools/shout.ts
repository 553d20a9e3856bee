// tools/shout.ts
export default {
  description: "Says the text back in capitals",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
  handler: ({ text }: { text: string }) => text.toUpperCase(),
};
