// toolshed new: being written (this session); replaced before the commit.
import type { Io } from "./command.ts";

export const command = {
  usage: "Usage: toolshed new",
  run(_args: string[], io: Io): Promise<number> {
    io.err("toolshed new is not built yet\n");
    return Promise.resolve(1);
  },
};
