import { describe, expect, it } from "vitest";
import { remoteTargetSchema, targetNature, targetPhrase } from "@/lib/forms/targets";

const valid = {
  name: "Production",
  appId: "APP-1",
  chatBaseUrl: "https://api-APP-1.example.com/",
  callsBaseUrl: "",
  apiToken: "a1b2c3d4e5f6a7b8c9d0",
  environment: "production",
};

describe("the form of a remote target", () => {
  it("takes a name, an application, an http(s) address and a token; a blank calls address is none", () => {
    const parsed = remoteTargetSchema.parse(valid);
    expect(parsed.chatBaseUrl).toBe("https://api-APP-1.example.com");
    expect(parsed.callsBaseUrl).toBeUndefined();
  });

  it("refuses a token a header cannot carry, without repeating it in the message", () => {
    for (const apiToken of ["a1b2c3d4 e5f6", "a1b2c3d4\ne5f6", "a1b2c3d4é5f6"]) {
      const result = remoteTargetSchema.safeParse({ ...valid, apiToken });
      expect(result.success, JSON.stringify(apiToken)).toBe(false);
      const messages = result.error!.issues.map((issue) => issue.message).join(" ");
      expect(messages).toMatch(/letters, digits and punctuation only/);
      expect(messages).not.toContain("a1b2c3d4");
    }
  });

  it("refuses an address that is not http(s) or carries credentials", () => {
    for (const chatBaseUrl of ["ftp://x.example.com", "https://user:pw@x.example.com", "x"])
      expect(remoteTargetSchema.safeParse({ ...valid, chatBaseUrl }).success, chatBaseUrl).toBe(
        false,
      );
  });
});

describe("how confirmations name a target", () => {
  it("says what it is: the embedded sandbox, a remote sandbox or a production platform", () => {
    const target = { name: "Far", appId: "far", kind: "remote", environment: "sandbox" } as const;
    expect(targetPhrase(target)).toBe("Far (application far, a remote sandbox)");
    expect(targetNature({ kind: "remote", environment: "production" })).toBe(
      "a production platform",
    );
    expect(targetNature({ kind: "sandbox", environment: "sandbox" })).toBe("the embedded sandbox");
  });
});
