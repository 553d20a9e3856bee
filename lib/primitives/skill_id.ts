// What the core knows of skills without loading them (primitives/skills.ts loads with a
// skills/ folder): the extension's name, and how a skill's URI is compared.

/** The skills extension's identifier (SEP-2640), the key of `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** The WHATWG form of `uri` (how a skill's URIs are compared), or undefined if it is none. */
export function canonicalUri(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}
