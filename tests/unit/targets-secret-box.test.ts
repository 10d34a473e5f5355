import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { isEncrypted, openSecret, sealSecret, SecretBoxError } from "@/lib/targets/secret-box";

const token = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0";

describe("a remote target's API token at rest", () => {
  it("round-trips through AES-256-GCM with the key, and the sealed text holds no part of it", () => {
    const key = randomBytes(32);
    const sealed = sealSecret(token, key);
    expect(isEncrypted(sealed)).toBe(true);
    expect(sealed).not.toContain(token);
    expect(sealed).not.toContain(token.slice(0, 12));
    expect(sealed).not.toContain(Buffer.from(token).toString("base64url").slice(0, 12));
    expect(openSecret(sealed, key)).toBe(token);
    // A fresh IV each time: the same token never seals to the same text.
    expect(sealSecret(token, key)).not.toBe(sealed);
    // Any text survives, not only hex.
    expect(openSecret(sealSecret("é ✓ 🎉", key), key)).toBe("é ✓ 🎉");
  });

  it("refuses to open with another key, naming the key as the cause", () => {
    const sealed = sealSecret(token, randomBytes(32));
    expect(() => openSecret(sealed, randomBytes(32))).toThrow(SecretBoxError);
    expect(() => openSecret(sealed, randomBytes(32))).toThrow(/another SWITCHBOARD_SECRET_KEY/);
  });

  it("refuses to open without the key it was sealed with", () => {
    const sealed = sealSecret(token, randomBytes(32));
    expect(() => openSecret(sealed, undefined)).toThrow(/SWITCHBOARD_SECRET_KEY, which is not set/);
  });

  it("refuses a damaged ciphertext or tag instead of returning garbage", () => {
    const key = randomBytes(32);
    const parts = sealSecret(token, key).split(".");
    const flipped = (text: string) => (text[0] === "A" ? "B" : "A") + text.slice(1);
    for (const index of [3, 4]) {
      const damaged = parts.map((part, i) => (i === index ? flipped(part) : part)).join(".");
      expect(() => openSecret(damaged, key)).toThrow(/damaged/);
    }
    expect(() => openSecret("rot13.whatever", key)).toThrow(/not in a form/);
  });

  it("without a key, keeps it as plain text marked so (and it still opens once a key is set)", () => {
    const sealed = sealSecret(token, undefined);
    expect(isEncrypted(sealed)).toBe(false);
    expect(sealed.startsWith("plain.")).toBe(true);
    expect(openSecret(sealed, undefined)).toBe(token);
    expect(openSecret(sealed, randomBytes(32))).toBe(token);
  });
});

describe("SWITCHBOARD_SECRET_KEY", () => {
  const saved = process.env.SWITCHBOARD_SECRET_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.SWITCHBOARD_SECRET_KEY;
    else process.env.SWITCHBOARD_SECRET_KEY = saved;
  });
  async function parse(value: string) {
    process.env.SWITCHBOARD_SECRET_KEY = value;
    const { vi } = await import("vitest");
    vi.resetModules();
    const { env } = await import("@/lib/env");
    return env().SWITCHBOARD_SECRET_KEY;
  }

  it("takes 32 bytes as hex or base64", async () => {
    const key = randomBytes(32);
    expect(Buffer.from((await parse(key.toString("hex")))!)).toEqual(key);
    expect(Buffer.from((await parse(key.toString("base64")))!)).toEqual(key);
  });

  it("refuses anything else with a message naming the variable's form", async () => {
    for (const value of ["short", randomBytes(16).toString("hex"), "z".repeat(64)])
      await expect(parse(value)).rejects.toThrow(
        /SWITCHBOARD_SECRET_KEY: must be 32 bytes as 64 hex digits or base64/,
      );
  });
});
