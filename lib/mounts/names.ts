// How mount files are named (adr/0071), apart from the code that reads them: discovery finds
// them by these before it loads anything of mounts.

/** A mounted server's file: `tools/<stem>.mcp.json`, one entry of a client's `.mcp.json`. */
export const MOUNT_SUFFIX = ".mcp.json";
/** Its pins beside it: `tools/<stem>.pins.json`. */
export const PINS_SUFFIX = ".pins.json";
