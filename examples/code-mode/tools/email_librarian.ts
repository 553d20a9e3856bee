// A write that did not opt in to code: a model calls it directly, one approved call at a time.
export default {
  title: "Email the librarian",
  description: "Sends the librarian a message",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
  annotations: { readOnlyHint: false, destructiveHint: false },
  handler({ message }: { message: string }) {
    return { content: [{ type: "text", text: `Sent: ${message}` }] };
  },
};
