// resources/status.ts
import type { ResourceDefinition } from "@toolshed/toolshed";

export default {
  uri: "status://server",
  description: "Whether the server is healthy, as JSON",
  mimeType: "application/json",
  read: () => JSON.stringify({ ok: true, checkedAt: new Date().toISOString() }),
} satisfies ResourceDefinition;
