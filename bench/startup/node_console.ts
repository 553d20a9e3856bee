// node:util plus node:console, as the first stdout guard used them.
import { parseArgs } from "node:util";
import { Console } from "node:console";
parseArgs({ args: [], options: {} });
new Console({
  stdout: {
    write: () => true,
    listenerCount: () => 0,
    on() {},
    once() {},
    removeListener() {},
  } as never,
});
