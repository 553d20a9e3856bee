// The mounts of one server (adr/0071 §7): each kept across reloads while its file is unchanged,
// so an edit elsewhere in the directory never reconnects an upstream, and an edit of one mount
// reconnects that one alone. Closing the server closes every upstream.
import { loadMount, type Mount, type MountOptions } from "./mount.ts";

export interface MountHost {
  /** The mount in `url`: the one loaded before when its file did not change, else a new one. */
  load(url: URL, shown: string, stem: string): Promise<Mount>;
  /** Closes the mounts whose files a load no longer found. */
  sweep(files: ReadonlySet<string>): Promise<void>;
  /** The mounts loaded, by file. */
  mounts(): readonly Mount[];
  close(): Promise<void>;
}

export function createMountHost(options: MountOptions): MountHost {
  const byFile = new Map<string, { text: string; mount: Promise<Mount> }>();
  const ready = new Map<string, Mount>();
  const closeOf = (entry: { mount: Promise<Mount> }) =>
    entry.mount.then((mount) => mount.close(), () => {});
  return {
    async load(url, shown, stem) {
      const text = await Deno.readTextFile(url);
      const known = byFile.get(shown);
      if (known?.text === text) {
        const mount = await known.mount;
        await mount.repin();
        return mount;
      }
      if (known !== undefined) await closeOf(known);
      ready.delete(shown);
      const mount = loadMount(text, url, shown, stem, options);
      byFile.set(shown, { text, mount });
      try {
        const loaded = await mount;
        if (byFile.get(shown)?.mount === mount) ready.set(shown, loaded);
        return loaded;
      } catch (error) {
        // A file that failed to load is read again next time.
        if (byFile.get(shown)?.mount === mount) byFile.delete(shown);
        throw error;
      }
    },
    async sweep(files) {
      const gone = [...byFile].filter(([file]) => !files.has(file));
      for (const [file] of gone) {
        byFile.delete(file);
        ready.delete(file);
      }
      await Promise.all(gone.map(([, entry]) => closeOf(entry)));
    },
    mounts: () => [...ready.values()],
    async close() {
      const all = [...byFile.values()];
      byFile.clear();
      ready.clear();
      await Promise.all(all.map(closeOf));
    },
  };
}
