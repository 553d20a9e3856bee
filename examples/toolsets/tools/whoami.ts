// tools/whoami.ts: a top-level tool, served whichever toolsets a connection chooses.
export default {
  description: "Says who the server acts as",
  annotations: { readOnlyHint: true },
  inputSchema: { type: "object" },
  handler: () => "octocat",
};
