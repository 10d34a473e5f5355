import { describe, expect, it } from "vitest";
import { prepareRow } from "@/lib/imports/prepare";
import { ErrorCode } from "@/lib/sandbox/errors";
import { parseJsonObject } from "@/lib/sandbox/request";
import { refuseHost, refuseRequestTarget } from "@/lib/schemas/request-target";
import { findUnstorableText, isStorableText } from "@/lib/schemas/text-values";
import { createUserSchema, updateUserMetadataSchema } from "@/lib/schemas/users";
import { resolveClientAddress } from "@/lib/server/request-guard";
import { requestOrigin, sandboxApplicationUrl } from "@/lib/request-origin";
import ipaddr from "ipaddr.js";

describe("storable text", () => {
  it("refuses NUL and unpaired surrogates, keeps pairs, RTL marks and other controls", () => {
    expect(isStorableText("a\u0000b")).toBe(false);
    expect(isStorableText("\ud800")).toBe(false);
    expect(isStorableText("x\udc00")).toBe(false);
    expect(isStorableText("\udc00\ud800")).toBe(false);
    expect(isStorableText("😀 \u202e \u0001 \ufeff")).toBe(true);
  });

  it("finds them in keys and nested values", () => {
    expect(findUnstorableText({ a: [{ b: "ok" }, "x\u0000"] })).toBe("x\u0000");
    expect(findUnstorableText({ ["k\ud800"]: "v" })).toBe("k\ud800");
    expect(findUnstorableText({ a: [1, null, true, { b: "ok" }] })).toBeUndefined();
  });

  it("refuses a request body whose escapes, in either case, parse to them", () => {
    for (const text of [
      String.raw`{"s":"a\u0000b"}`,
      String.raw`{"s":"\uD800"}`,
      String.raw`{"s":"\udfff"}`,
      String.raw`{"s":["ok",{"t":"\uDc00x"}]}`,
      String.raw`{"\ud800":1}`,
      '{"s":"x\ud800"}', // the half itself, not an escape
    ]) {
      expect(() => parseJsonObject(text), text).toThrow(
        expect.objectContaining({ code: ErrorCode.invalidValue }),
      );
    }
  });

  it("reads pairs, escaped backslashes and plain text as they are", () => {
    expect(parseJsonObject(String.raw`{"s":"\ud83d\ude00 😀","t":"\\u0000"}`)).toEqual({
      s: "😀 😀",
      t: String.raw`\u0000`,
    });
    expect(parseJsonObject(`{"s":"${"x".repeat(100)}","n":1}`)).toEqual({
      s: "x".repeat(100),
      n: 1,
    });
  });
});

describe("request targets", () => {
  it("refuses undecodable percent-encoding, encoded NUL and surrogates, with 400", () => {
    for (const target of [
      "/v3/users/%zz",
      "/v3/users/%E0%A4",
      "/v3/users/a%00b",
      "/v3/users?user_ids=%ED%A0%80",
      "/v3/users?x=%",
    ]) {
      expect(refuseRequestTarget(target), target).toMatchObject({ status: 400 });
    }
  });

  it("serves ordinary targets, + and encoded UTF-8 included", () => {
    for (const target of [
      "/",
      "/v3/users/ada?limit=10&next=",
      "/v3/users/%F0%9F%98%80",
      "/x?q=a+b%2Bc",
    ]) {
      expect(refuseRequestTarget(target), target).toBeUndefined();
    }
  });

  it("refuses a target over 8 KB with 414", () => {
    expect(refuseRequestTarget(`/v3/users?user_ids=${"a".repeat(8 * 1024)}`)).toMatchObject({
      status: 414,
    });
    expect(refuseRequestTarget(`/${"a".repeat(8 * 1024 - 1)}`)).toBeUndefined();
  });
});

describe("Host headers", () => {
  it("refuses a missing or empty one in HTTP/1.1, and one that is not a host with a port", () => {
    for (const [host, version] of [
      [undefined, "1.1"],
      ["", "1.1"],
      ["a b", "1.1"],
      ["user@example.com", "1.1"],
      ["example.com/path", "1.1"],
      ["example.com?x", "1.0"],
      ["[::1", "1.1"],
      ["bücher.example", "1.1"],
    ] as const) {
      expect(refuseHost(host, version), String(host)).toMatchObject({ status: 400 });
    }
  });

  it("serves host names, addresses and ports, and HTTP/1.0 without one", () => {
    for (const host of [
      "localhost",
      "127.0.0.1:3000",
      "Example.COM:80",
      "[::1]:3000",
      "a_b.internal",
    ]) {
      expect(refuseHost(host, "1.1"), host).toBeUndefined();
    }
    expect(refuseHost(undefined, "1.0")).toBeUndefined();
  });
});

describe("client address", () => {
  const trusted = [ipaddr.parseCIDR("10.0.0.0/8")];

  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress("127.0.0.2", "203.0.113.9", [])).toBe("127.0.0.2");
    expect(resolveClientAddress("::ffff:127.0.0.3", undefined, [])).toBe("127.0.0.3");
  });

  it("behind trusted proxies, is the first untrusted hop from the right", () => {
    expect(resolveClientAddress("10.0.0.1", "198.51.100.7, 203.0.113.9, 10.0.0.2", trusted)).toBe(
      "203.0.113.9",
    );
    expect(resolveClientAddress("10.0.0.1", "10.0.0.3", trusted)).toBe("10.0.0.3");
    expect(resolveClientAddress("10.0.0.1", "garbage", trusted)).toBe("10.0.0.1");
    expect(resolveClientAddress("192.0.2.1", "10.0.0.1", trusted)).toBe("192.0.2.1");
  });

  it("answers alike when asked again, each list of trusted proxies on its own", () => {
    for (let n = 0; n < 3; n++) {
      expect(resolveClientAddress("10.0.0.1", "203.0.113.9", trusted)).toBe("203.0.113.9");
      expect(resolveClientAddress("10.0.0.1", "203.0.113.9", [])).toBe("10.0.0.1");
    }
  });
});

describe("request origin", () => {
  const headers = (values: Record<string, string>) => ({
    get: (name: string) => values[name] ?? null,
  });

  it("takes the proxy's headers first, then Host, then the request's own URL", () => {
    expect(
      requestOrigin(
        headers({
          "x-forwarded-host": "a.example, b.example",
          "x-forwarded-proto": "https",
          host: "c",
        }),
        "http://internal:3000/x",
      ),
    ).toBe("https://a.example");
    expect(requestOrigin(headers({ host: "c.example:8080" }), "https://internal/x")).toBe(
      "https://c.example:8080",
    );
    expect(requestOrigin(headers({}), "HTTP://internal:3000/x")).toBe("http://internal:3000");
    expect(requestOrigin(headers({}))).toBe("http://localhost");
  });

  it("keeps an application's id inside its one path segment of the sandbox's URL", () => {
    expect(sandboxApplicationUrl("http://127.0.0.1:3000", "local")).toBe(
      "http://127.0.0.1:3000/sandbox/local",
    );
    expect(sandboxApplicationUrl("https://a.example", "../v3?x=1#y")).toBe(
      "https://a.example/sandbox/..%2Fv3%3Fx%3D1%23y",
    );
  });
});

describe("user schemas", () => {
  it('refuses the ids "." and ".." and NUL in any field', () => {
    for (const user_id of [".", "..", "a\u0000"]) {
      expect(
        createUserSchema.safeParse({ user_id, nickname: "n", profile_url: "" }).success,
        user_id,
      ).toBe(false);
    }
    expect(
      createUserSchema.safeParse({ user_id: "...", nickname: "n", profile_url: "" }).success,
    ).toBe(true);
    expect(
      createUserSchema.safeParse({ user_id: "a", nickname: "\ud800", profile_url: "" }).success,
    ).toBe(false);
  });

  it("keeps a __proto__ metadata key as an own item and checks its value", () => {
    const parsed = updateUserMetadataSchema.parse(
      JSON.parse('{"metadata":{"__proto__":"x","a":"b"}}'),
    );
    expect(Object.getPrototypeOf(parsed.metadata)).toBe(Object.prototype);
    expect(Object.keys(parsed.metadata)).toEqual(["__proto__", "a"]);
    expect(JSON.stringify(parsed.metadata)).toBe('{"__proto__":"x","a":"b"}');
    const wrong = updateUserMetadataSchema.safeParse(
      JSON.parse('{"metadata":{"__proto__":{"polluted":true}}}'),
    );
    expect(wrong.success).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("import preview", () => {
  it("flags a cell with a NUL byte before anything is sent", () => {
    const row = prepareRow(
      "users",
      ["user_id", "nickname"],
      { user_id: "user_id", nickname: "nickname" },
      ["ann", "A\u0000nn"],
      0,
    );
    expect(row.body).toBeNull();
    expect(row.issues).toMatchObject([{ field: "nickname", severity: "error", code: 400111 }]);
  });
});
