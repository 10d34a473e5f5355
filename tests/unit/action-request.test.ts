import { describe, expect, it } from "vitest";
import { refuseServerActionRequest } from "@/lib/server/action-request";

const limit = 2 * 1024 * 1024;

function check(
  body: string | Uint8Array,
  contentType = "text/plain;charset=UTF-8",
  isActionCall = true,
) {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return refuseServerActionRequest({ contentType, isActionCall, body: bytes }, limit);
}

describe("server action requests Next.js could not decode", () => {
  it("refuses bodies that are not a JSON array of arguments with 400", () => {
    for (const body of ["", "  ", "{not json", '{"a":1}', '"text"', "1", "null"]) {
      expect(check(body), JSON.stringify(body)).toMatchObject({ status: 400 });
    }
    expect(check(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]))).toMatchObject({
      status: 400,
      message: "The request body is not valid UTF-8.",
    });
  });

  it("refuses over 1,000 arguments, and a body over the actions' size limit with 413", () => {
    expect(check(JSON.stringify(Array(1001).fill({})))).toMatchObject({
      status: 400,
      message: expect.stringContaining("at most 1,000 arguments"),
    });
    expect(check(JSON.stringify(Array(1000).fill({})))).toBeUndefined();
    expect(check(JSON.stringify(["x".repeat(limit)]))).toMatchObject({ status: 413 });
  });

  it("refuses references to parts a JSON body does not have", () => {
    for (const reference of [
      "$1",
      "$Q1",
      "$W2",
      "$K1",
      "$@1",
      "$h1",
      "$T",
      "$B1",
      "$0:nothing",
      "$nzz",
    ]) {
      expect(check(JSON.stringify([{ a: { b: [reference] } }])), reference).toMatchObject({
        status: 400,
      });
    }
  });

  it("lets through what React's client sends for JSON values", () => {
    for (const args of [
      [],
      [{ password: "$$secret", next: "/" }],
      [{ n: "$NaN", i: "$Infinity", m: "$-Infinity", z: "$-0", u: "$undefined" }],
      [{ when: "$D2026-11-26T00:00:00.000Z", big: "$n-12345" }],
      // The same object passed twice: the second is a path into the first.
      [{ rows: [{ values: ["a"] }], again: "$0:0:rows:0" }],
    ]) {
      expect(check(JSON.stringify(args)), JSON.stringify(args)).toBeUndefined();
    }
  });

  it("refuses every multipart form, action call or not, and leaves other posts alone", () => {
    const broken = '--x\r\nContent-Disposition: form-data; name="1"\r\n\r\nabc';
    expect(check(broken, "multipart/form-data; boundary=x")).toMatchObject({ status: 415 });
    expect(check(broken, "Multipart/Form-Data; boundary=x", false)).toMatchObject({ status: 415 });
    expect(check("{", "application/x-www-form-urlencoded", false)).toBeUndefined();
  });
});
