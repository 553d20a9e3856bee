// tools/issues/list_issues.ts: the tool "list_issues" in the toolset "issues".
import { issues } from "../_shared/store.ts";

export default {
  description: "Lists the open issues",
  annotations: { readOnlyHint: true },
  inputSchema: { type: "object" },
  handler: () =>
    [...issues].filter(([, issue]) => issue.open).map(([id, issue]) => `#${id} ${issue.title}`)
      .join("\n"),
};
