import { describe, expect, it } from "vitest";
import { safeNextPath, signInPath } from "@/lib/auth/safe-next";

describe("the next parameter after signing in", () => {
  it("keeps paths on this site, with their query and fragment", () => {
    expect(safeNextPath("/settings")).toBe("/settings");
    expect(safeNextPath("/imports?job=42#rows")).toBe("/imports?job=42#rows");
    expect(safeNextPath("/")).toBe("/");
  });

  it("turns anything that could leave the site into /", () => {
    for (const next of [
      undefined,
      null,
      "",
      "settings",
      "//evil.example",
      "//evil.example/settings",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "/\t/evil.example",
      "/\n/evil.example",
      " /settings",
    ]) {
      expect(safeNextPath(next)).toBe("/");
    }
  });

  it("normalizes dot segments instead of trusting them", () => {
    expect(safeNextPath("/a/../settings")).toBe("/settings");
    expect(safeNextPath("/../..//evil.example")).not.toMatch(/^\/\//);
  });

  it("does not send a fresh sign-in back to the sign-in page", () => {
    expect(safeNextPath("/sign-in")).toBe("/");
    expect(safeNextPath("/sign-in?next=/settings")).toBe("/");
  });

  it("builds the sign-in URL with an encoded next", () => {
    expect(signInPath("/settings")).toBe("/sign-in?next=%2Fsettings");
    expect(signInPath("/imports?job=1&x=2")).toBe("/sign-in?next=%2Fimports%3Fjob%3D1%26x%3D2");
    expect(signInPath()).toBe("/sign-in");
    expect(signInPath("/")).toBe("/sign-in");
    expect(signInPath("//evil.example")).toBe("/sign-in");
  });
});
