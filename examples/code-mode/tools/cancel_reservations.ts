// A destructive write: code may call it only if the operator runs toolshed with
// --code-destructive (its `code: true` alone is not enough).
export default {
  title: "Cancel every reservation",
  description: "Cancels all of the caller's reservations",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: false, destructiveHint: true },
  code: true,
  handler() {
    return { content: [{ type: "text", text: "Cancelled every reservation" }] };
  },
};
