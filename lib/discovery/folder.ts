// Where a folder of the server directory is: as a URL to read and import from, and as its
// messages show it. Every folder loader starts here.
//
// The loaders list folders and read what they say of files synchronously (readDirSync,
// statSync, realPathSync): at start nothing else runs, and Deno's first asynchronous call of
// the kind starts the thread pool it runs them on, 0.3–0.5 MB of peak memory at the first
// answer (adr/0074); on a reload (--watch), serving waits for the listing, microseconds an entry.
// What files hold is still read asynchronously (a FIFO named like a sidecar would hold the loop).

/**
 * The file URL of a directory path, relative to the working directory or absolute (POSIX
 * or Windows). Written out because node:url would load the Node compatibility layer.
 */
function directoryUrl(path: string): URL {
  const absolute = /^([/\\]|[A-Za-z]:[/\\])/.test(path) ? path : `${Deno.cwd()}/${path}`;
  const slashed = absolute.replaceAll("\\", "/");
  const rooted = slashed.startsWith("/") ? slashed : `/${slashed}`;
  const encoded = encodeURI(rooted).replaceAll("#", "%23").replaceAll("?", "%3F");
  return new URL(`file://${encoded.endsWith("/") ? encoded : `${encoded}/`}`);
}

/**
 * A folder given as a path (relative to the working directory) or a directory URL (a compiled
 * binary's embedded one): its URL, ending in "/", and its name in messages (the path as given,
 * or the URL's path), without a trailing "/".
 */
export function folderOf(dir: string | URL): { url: URL; shown: string } {
  if (typeof dir === "string") return { url: directoryUrl(dir), shown: dir.replace(/\/+$/, "") };
  const url = new URL(dir.href.endsWith("/") ? dir.href : `${dir.href}/`);
  return { url, shown: decodeURIComponent(url.pathname).replace(/\/+$/, "") };
}
