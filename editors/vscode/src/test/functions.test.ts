import { test } from "node:test";
import assert from "node:assert/strict";
import { functionAt } from "../functions";

const SRC = `#include <stdio.h>
/* popcount(x) in a comment { */
static int helper(int);
__attribute__((target("popcnt")))
int popcount(unsigned long x)
{
    int n = 0;
    while (x) { x &= x - 1; n++; }
    return n;
}

static const int table[] = { 1, 2 };

int main(int argc,
         char **argv) {
    if (argc > 1) { printf("}"); }
    return popcount(argc);
}
`.split("\n");

const cases: [number, string | undefined][] = [
  [0, undefined], [1, undefined], [2, undefined], [4, "popcount"], [6, "popcount"], [7, "popcount"], [9, "popcount"],
  [10, undefined], [11, undefined], [13, "main"], [14, "main"], [15, "main"], [16, "main"],
];
for (const [line, want] of cases) {
  test(`line ${line + 1}: ${want ?? "no function"}`, () => {
    assert.equal(functionAt(SRC, line), want);
  });
}
