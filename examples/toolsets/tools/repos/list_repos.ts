// tools/repos/list_repos.ts: the tool "list_repos" in the toolset "repos".
import { repos } from "../_shared/store.ts";

export default {
  description: "Lists the repositories",
  annotations: { readOnlyHint: true },
  inputSchema: { type: "object" },
  handler: () => [...repos].join("\n"),
};
