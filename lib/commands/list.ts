// toolshed list: being written (this session); replaced before the commit.
import type { Io } from "./command.ts";

export const command = {
  usage: "Usage: toolshed list",
  run(_args: string[], io: Io): Promise<number> {
    io.err("toolshed list is not built yet\n");
    return Promise.resolve(1);
  },
};
