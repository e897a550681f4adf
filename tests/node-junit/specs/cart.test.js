// jest: two `it`s may share a title; each is its own test.
describe("cart", () => {
  it("adds an item", () => { expect(1 + 1).toBe(2); });
  it("adds an item", () => { expect(1 + 1).toBe(3); });
  it("removes an item", () => { expect([1].length).toBe(1); });
  it("totals", () => { expect(2).toBe(2); });
  it("totals", () => { expect(2).toBe(2); });
  it.skip("applies a coupon", () => { expect(0).toBe(1); });
  it.todo("ships abroad");
});
