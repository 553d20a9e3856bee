// tools/repos/create_repo.ts: changes something, so --read-only leaves it out.
import { repos } from "../_shared/store.ts";

export default {
  description: "Creates a repository",
  annotations: { readOnlyHint: false, destructiveHint: false },
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
  handler: ({ name }: { name: string }) => {
    repos.add(name);
    return `Created ${name}`;
  },
};
