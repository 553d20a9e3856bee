// Where the server card and the AI catalog are served (SEP-2127's draft, docs/discovery.md of
// modelcontextprotocol/experimental-ext-server-card; adr/0050): the route table reads these,
// and the module that makes the documents (server_card.ts) is loaded only when one is asked for.
// The card's name under the endpoint is primitives/toolsets.ts's, which no toolset may take.
import { SERVER_CARD_ROUTE } from "../../primitives/toolsets.ts";

/** The card's path after the endpoint's: `<streamable-http-url>/server-card`. */
export const SERVER_CARD_SUFFIX = `/${SERVER_CARD_ROUTE}`;
/** The host's AI catalog, at the well-known URI the draft keeps for it. */
export const AI_CATALOG_PATH = "/.well-known/ai-catalog.json";
