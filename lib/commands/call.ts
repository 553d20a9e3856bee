// toolshed call: being written (this session); replaced before the commit.
import type { Io } from "./command.ts";

export const command = {
  usage: "Usage: toolshed call",
  run(_args: string[], io: Io): Promise<number> {
    io.err("toolshed call is not built yet\n");
    return Promise.resolve(1);
  },
};
