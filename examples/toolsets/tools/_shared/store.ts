// tools/_shared/store.ts: a helper the tools import. Folders beginning with "_" are not toolsets.
export const issues = new Map<number, { title: string; open: boolean }>([
  [1, { title: "Crash on empty input", open: true }],
  [2, { title: "Docs typo", open: true }],
]);
export const repos = new Set(["toolshed"]);
