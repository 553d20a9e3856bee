// The protocol versions toolshed speaks and what each one supports: the one table every
// other file reads, instead of lists kept in step by hand.

/**
 * What differs between the protocol eras: 2026-07-28 and later are stateless (every request
 * carries its version and client); earlier ones open a session with `initialize`.
 */
export type Era = "stateless" | "session";

export interface VersionFeatures {
  readonly era: Era;
  /** A Tool's `title` (2025-06-18). */
  readonly toolTitle: boolean;
  /** A Tool's `icons` (2025-11-25). */
  readonly toolIcons: boolean;
  /** A Tool's `annotations` (2025-03-26). */
  readonly toolAnnotations: boolean;
  /** `outputSchema`, `structuredContent` and a Tool's `_meta` (2025-06-18). */
  readonly structuredContent: boolean;
  /** Methods of earlier revisions this one removed: asked for, they get -32601 saying so. */
  readonly removedMethods: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** Newest first. */
export const VERSIONS: ReadonlyMap<string, VersionFeatures> = new Map([
  ["2026-07-28", {
    era: "stateless",
    toolTitle: true,
    toolIcons: true,
    toolAnnotations: true,
    structuredContent: true,
    removedMethods: new Set([
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "tasks/result",
    ]),
  }],
  ["2025-11-25", sessionEra({ title: true, icons: true, annotations: true, structured: true })],
  ["2025-06-18", sessionEra({ title: true, icons: false, annotations: true, structured: true })],
  ["2025-03-26", sessionEra({ title: false, icons: false, annotations: true, structured: false })],
  ["2024-11-05", sessionEra({ title: false, icons: false, annotations: false, structured: false })],
]);

function sessionEra(
  can: { title: boolean; icons: boolean; annotations: boolean; structured: boolean },
): VersionFeatures {
  return {
    era: "session",
    toolTitle: can.title,
    toolIcons: can.icons,
    toolAnnotations: can.annotations,
    structuredContent: can.structured,
    removedMethods: NONE,
  };
}

const versionsOf = (era: Era): readonly string[] =>
  [...VERSIONS].filter(([, features]) => features.era === era).map(([version]) => version);

/** Stateless revisions, newest first: what `supportedVersions` and -32022's data list. */
export const STATELESS_VERSIONS: readonly string[] = versionsOf("stateless");

/** Revisions negotiated by `initialize`, newest first. */
export const SESSION_VERSIONS: readonly string[] = versionsOf("session");
