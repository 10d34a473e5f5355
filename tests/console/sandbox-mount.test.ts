import { describe, expect, inject, it } from "vitest";
import { call, expectPlatformError, uniqueId } from "../api/support/http";

describe("the sandbox mounted inside the console at /sandbox", () => {
  const { origin, sandboxToken } = inject("console");
  const target = { baseUrl: `${origin}/sandbox/local`, token: sandboxToken };

  it("is authenticated by Api-Token, not by the console session", async () => {
    expectPlatformError(await call({ ...target, token: "" }, "GET", "/v3/users"), 401, 400401);
    const settings = await call(target, "GET", "/v1/applications/local/settings/webhook");
    expect(settings.status).toBe(200);
    expect(settings.body).toHaveProperty("webhook");
  });

  it("creates a user over the mount exactly as the standalone server does", async () => {
    const userId = uniqueId();
    const created = await call(target, "POST", "/v3/users", {
      user_id: userId,
      nickname: "Mount",
      profile_url: "",
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ user_id: userId, is_active: true, is_created: true });
    expectPlatformError(
      await call(target, "POST", "/v3/users", {
        user_id: userId,
        nickname: "Mount",
        profile_url: "",
      }),
      400,
      400202,
    );
  });

  it("answers unknown applications and routes with the platform's codes", async () => {
    expectPlatformError(
      await call({ ...target, baseUrl: `${origin}/sandbox/nope` }, "GET", "/v3/users"),
      404,
      400304,
    );
    expectPlatformError(await call(target, "DELETE", "/v9/whatever"), 404, 400404);
  });

  it("refuses a malformed body without writing", async () => {
    const response = await call(target, "POST", "/v3/users", undefined, {
      headers: { "content-type": "application/json" },
      rawBody: "{not json",
    });
    expectPlatformError(response, 400, 400403);
  });
});
