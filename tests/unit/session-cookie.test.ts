import { describe, expect, it } from "vitest";
import { hashSessionId, signSessionCookie, verifySessionCookie } from "@/lib/auth/session-cookie";

const secret = "test-secret-0123456789";
const id = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const now = new Date("2030-01-01T00:00:00Z");
const expiresAt = new Date("2030-01-01T12:00:00Z");

describe("session cookie signing", () => {
  it("reads back what it signed", () => {
    const value = signSessionCookie({ id, expiresAt }, secret);
    expect(verifySessionCookie(value, secret, now)).toEqual({ id, expiresAt });
  });

  it("refuses a tampered id, expiry or signature", () => {
    const value = signSessionCookie({ id, expiresAt }, secret);
    const [, expires, signature] = value.split(".") as [string, string, string];
    const otherId = `${id.slice(0, -1)}6`;
    expect(verifySessionCookie(`${otherId}.${expires}.${signature}`, secret, now)).toBeNull();
    const later = String(Number(expires) + 86_400_000);
    expect(verifySessionCookie(`${id}.${later}.${signature}`, secret, now)).toBeNull();
    const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
    expect(verifySessionCookie(`${id}.${expires}.${flipped}`, secret, now)).toBeNull();
  });

  it("refuses a cookie signed with another secret", () => {
    const value = signSessionCookie({ id, expiresAt }, "another-secret-9876543210");
    expect(verifySessionCookie(value, secret, now)).toBeNull();
  });

  it("refuses an expired cookie", () => {
    const value = signSessionCookie({ id, expiresAt }, secret);
    expect(verifySessionCookie(value, secret, expiresAt)).toBeNull();
    expect(verifySessionCookie(value, secret, new Date(expiresAt.getTime() + 1))).toBeNull();
    expect(verifySessionCookie(value, secret, new Date(expiresAt.getTime() - 1))).not.toBeNull();
  });

  it("refuses malformed values", () => {
    for (const value of [
      undefined,
      "",
      "abc",
      `${id}.123`,
      `${id}.x.y`,
      `short.1.sig`,
      `${id}.1.2.3`,
    ]) {
      expect(verifySessionCookie(value, secret, now)).toBeNull();
    }
  });

  it("stores a one-way hash of the id", () => {
    expect(hashSessionId(id)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionId(id)).not.toContain(id);
    expect(hashSessionId(id)).toBe(hashSessionId(id));
  });
});
