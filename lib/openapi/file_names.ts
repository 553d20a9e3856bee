// The file names of an API in tools/ (adr/0072 §1): `<stem>.openapi.json|yaml|yml` is the
// document, `<stem>.api.json` beside it says what the document cannot. Discovery reads these
// without loading the rest of openapi/.

/** An OpenAPI document's file name; the first group is its stem. */
export const OPENAPI_FILE = /^(.+)\.openapi\.(json|ya?ml)$/;

/** The ending of an API's sidecar (`tools/<stem>.api.json`). */
export const API_SUFFIX = ".api.json";
