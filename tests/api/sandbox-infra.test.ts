import { describe, expect, it } from "vitest";
import { call, expectPlatformError, sharedSandbox } from "./support/http";

describe("sandbox: addressing and authentication", () => {
  const sandbox = sharedSandbox();

  it("refuses a request without Api-Token with 401 / 400401", async () => {
    const response = await call({ ...sandbox, token: "" }, "GET", "/v3/users");
    expectPlatformError(response, 401, 400401);
    expect(response.headers.get("content-type")).toContain("application/json");
  });

  it("refuses a wrong Api-Token with 401 / 400401", async () => {
    expectPlatformError(
      await call({ ...sandbox, token: `${sandbox.token}x` }, "GET", "/v3/users"),
      401,
      400401,
    );
  });

  it("answers an unknown application with 404 / 400304", async () => {
    const response = await call(
      { ...sandbox, baseUrl: `${sandbox.origin}/sandbox/nope` },
      "GET",
      "/v3/users",
    );
    expectPlatformError(response, 404, 400304);
  });

  it("answers an unknown route with 404 / 400404", async () => {
    expectPlatformError(await call(sandbox, "GET", "/v3/nothing_here"), 404, 400404);
  });
});
