import { test } from "node:test";
import assert from "node:assert/strict";
import { statusView } from "../status";

test("jobs running spin, with what they do in the tooltip", () => {
  const v = statusView({ running: 2, message: "supercoder: popcount", last: null }, "running");
  assert.equal(v.text, "$(sync~spin) SuperCoder 2 jobs");
  assert.match(v.tooltip, /popcount/);
});

test("the last result shows as function and speedup", () => {
  const last = "popcount: 6.70x faster (95% CI 6.22-7.18), uses popcnt - verified on 100,252 inputs";
  const v = statusView({ running: 0, last }, "running");
  assert.equal(v.text, "$(zap) popcount 6.70x");
  assert.equal(v.tooltip, `SuperCoder: ${last}`);
});

test("a server that failed to start says where to look", () => {
  assert.match(statusView(undefined, "failed").tooltip, /Show Log/);
  assert.equal(statusView(undefined, "running").text, "$(zap) SuperCoder");
});
