import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, verifyPassword } from "@/lib/auth/password";

describe("administrator password hashing", () => {
  it("verifies the password it hashed and refuses others", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(hash).not.toContain("correct horse");
    await expect(verifyPassword("correct horse battery", hash)).resolves.toBe(true);
    await expect(verifyPassword("correct horse batterY", hash)).resolves.toBe(false);
    await expect(verifyPassword("", hash)).resolves.toBe(false);
  });

  it("salts every hash", async () => {
    const [first, second] = await Promise.all([hashPassword("same"), hashPassword("same")]);
    expect(first).not.toBe(second);
    await expect(verifyPassword("same", second)).resolves.toBe(true);
  });

  it("never matches a malformed or foreign hash", async () => {
    for (const stored of [
      "",
      "plain-text",
      "bcrypt$10$abc$def",
      "scrypt$0$8$1$c2FsdA$aGFzaA",
      "scrypt$32768$8$1$c2FsdA$",
    ]) {
      await expect(verifyPassword("anything", stored)).resolves.toBe(false);
    }
  });

  it("generates long passwords without look-alike characters", () => {
    const password = generatePassword();
    expect(password).toHaveLength(20);
    expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9]+$/);
    expect(generatePassword()).not.toBe(password);
  });
});
