// tools/add.ts
export default {
  description: "Adds two numbers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  annotations: { readOnlyHint: true },
  handler: ({ a, b }: { a: number; b: number }) => String(a + b),
};
