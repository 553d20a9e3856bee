// What parseArgs from node:util costs: the Node compatibility layer loads with it.
import { parseArgs } from "node:util";
parseArgs({ args: [], options: {} });
