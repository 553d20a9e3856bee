// tools/divide.ts
export default {
  description: "Divides a number by another",
  inputSchema: {
    type: "object",
    properties: { dividend: { type: "number" }, divisor: { type: "number" } },
    required: ["dividend", "divisor"],
  },
  annotations: { readOnlyHint: true },
  handler: ({ dividend, divisor }: { dividend: number; divisor: number }) => {
    if (divisor === 0) throw new Error(`Cannot divide "${dividend}" by zero`);
    return String(dividend / divisor);
  },
};
