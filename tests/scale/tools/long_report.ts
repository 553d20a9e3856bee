// Scale-test fixture (tests/scale.ts, checks i.d and k): the jobs fixture's long_report, served
// by the scale instances too — a call that takes `ms` milliseconds, saying how far it got every
// `stepMs`; with `mark`, it writes "aborted: <reason>" to that file when its signal fires, so
// that the test, another process, sees that the tool was stopped on the instance running it.
export { default } from "../../fixtures/jobs/tools/long_report.ts";
