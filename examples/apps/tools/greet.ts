// tools/greet.ts: a tool that shows its result in the app ui/greeter.html
export default {
  description: "Greets someone by name",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
  annotations: { readOnlyHint: true },
  ui: "greeter",
  handler: ({ name }: { name: string }) => `Hello, ${name}!`,
};
