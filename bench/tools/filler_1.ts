// One of nine tools that make the benchmark's directory ten tools strong (cold start loads all).
export default {
  description: "Filler tool 1: returns the sum of a list of numbers plus 1",
  inputSchema: {
    type: "object",
    properties: { numbers: { type: "array", items: { type: "number" }, maxItems: 1000 } },
    required: ["numbers"],
  },
  handler: ({ numbers }: { numbers: number[] }) => String(numbers.reduce((sum, n) => sum + n, 1)),
};
