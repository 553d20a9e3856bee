// The validator toolshed uses, loaded and prepared once.
import { Validator } from "npm:@cfworker/json-schema@4.1.6";
new Validator({ type: "object" }).validate({});
