// tools/issues/close_issue.ts: changes something, so --read-only leaves it out.
import { issues } from "../_shared/store.ts";

export default {
  description: "Closes an issue",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  inputSchema: {
    type: "object",
    properties: { id: { type: "integer" } },
    required: ["id"],
  },
  handler: ({ id }: { id: number }) => {
    const issue = issues.get(id);
    if (issue === undefined) throw new Error(`No issue #${id}`);
    issue.open = false;
    return `Closed #${id}`;
  },
};
