// node --test: nested suites, a skip, a todo and a failing test.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
describe("parser", () => {
  it("reads numbers", () => { assert.equal(Number("2"), 2); });
  it("reads dates", () => { assert.equal("2026-13-01", "2026-12-01"); });
  it("reads nothing", { skip: "not yet" }, () => {});
  it("reads everything", { todo: true }, () => {});
  describe("errors", () => {
    it("names the line", () => { assert.ok(true); });
  });
});
it("runs at top level", () => { assert.ok(true); });
