// examples/metrics: what its README promises. The directory passes `toolshed check`, and its
// prometheus.yml passes `promtool check config` (Debian's prometheus package has promtool; under
// CI its absence fails, elsewhere the check is ignored with a line saying so).
// tests/prometheus_test.ts runs this configuration in a real Prometheus against main.ts.
import assert from "node:assert/strict";
import { exampleDir, which } from "./_example.ts";

const DIR = exampleDir("metrics");
const PROMTOOL = await which("promtool");
const RUN = PROMTOOL !== undefined || Deno.env.get("CI") !== undefined;
if (!RUN) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    "tests: promtool is not installed, so examples/metrics/prometheus.yml is not checked " +
      "(apt-get install prometheus checks it)\n",
  ));
}

Deno.test({
  name: "examples/metrics/prometheus.yml passes promtool check config",
  ignore: !RUN,
  async fn() {
    assert.ok(PROMTOOL, "promtool is not installed (apt-get install prometheus)");
    const { code, stdout, stderr } = await new Deno.Command(PROMTOOL, {
      args: ["check", "config", `${DIR}prometheus.yml`],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    assert.equal(code, 0, decoder.decode(stdout) + decoder.decode(stderr));
  },
});
