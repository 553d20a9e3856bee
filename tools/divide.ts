// A failure the model should see: a thrown error becomes a result with `isError: true`
// carrying the message, so the model can correct its call. The stack goes to stderr.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  title: "Divide",
  description:
    "Divides one number by another. Dividing by zero is an error the model is told about.",
  inputSchema: {
    type: "object",
    properties: {
      dividend: { type: "number", description: "The number to divide" },
      divisor: { type: "number", description: "The number to divide by; must not be zero" },
    },
    required: ["dividend", "divisor"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ dividend, divisor }: { dividend: number; divisor: number }) => {
    if (divisor === 0) throw new Error(`Cannot divide "${dividend}" by zero`);
    return String(dividend / divisor);
  },
} satisfies ToolDefinition<{ dividend: number; divisor: number }>;
