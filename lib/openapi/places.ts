// Where each argument of an operation's tool goes in the HTTP request (adr/0072): what
// schemas.ts derives from the document and request.ts serializes.
import type { JsonObject } from "../util/json.ts";

/** One parameter of the operation, with OpenAPI 3's defaults for style and explode applied. */
export interface ParameterPlace {
  in: "path" | "query" | "header" | "cookie";
  name: string;
  style: string;
  explode: boolean;
  allowReserved: boolean;
  schema: JsonObject;
}

/** The operation's request body: its first media type, and which arguments make it. */
export interface BodyPlace {
  mediaType: string;
  shape: "properties" | "whole";
  /** The one argument of a whole body. */
  argument?: string;
  /** The body property arguments. */
  properties?: string[];
  encoding?: JsonObject;
}
