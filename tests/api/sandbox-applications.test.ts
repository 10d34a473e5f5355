import { beforeAll, describe, expect, it } from "vitest";
import {
  createApplication,
  createSandboxApp,
  deleteApplication,
  ensureDefaultApplication,
  parseFaults,
  rotateApiToken,
  setApplicationRateLimit,
  updateWebhookSettings,
  type SandboxApp,
} from "@/lib/sandbox";
import { ErrorCode } from "@/lib/sandbox/errors";
import { useTestDatabase } from "./support/test-database";

// Sandbox administration has one door (lib/sandbox/applications). The sandbox serving requests
// keeps each application's row in memory and its rate-limit buckets; every operation through
// the door must take effect on the very next request, with no cache dropped by the caller.
describe("the door into sandbox administration", () => {
  const database = useTestDatabase();
  let sandbox: SandboxApp;

  beforeAll(async () => {
    sandbox = createSandboxApp({
      getDb: async () => database.db,
      config: {
        defaultAppId: "local",
        defaultApiToken: "door_default_token_0123456789",
        rateLimit: null,
        faults: parseFaults(undefined),
        webhookTimeoutMs: 1_000,
      },
    });
    await sandbox.ready();
  });

  async function get(appId: string, token: string, path = "/v3/users") {
    const response = await sandbox.fetch(
      new Request(`http://sandbox.test/sandbox/${appId}${path}`, {
        headers: { "Api-Token": token },
      }),
    );
    const body = (await response.json()) as { code?: number; webhook?: object };
    return { status: response.status, code: body.code, body, headers: response.headers };
  }

  it("serves an application as soon as it is created, and no second one under its id", async () => {
    expect((await get("door-new", "anything")).code).toBe(ErrorCode.noSuchApplication);
    const app = await createApplication(database.db, { id: "door-new", name: "New" });
    expect(app).toBeDefined();
    expect((await get("door-new", app!.apiToken)).status).toBe(200);
    expect(await createApplication(database.db, { id: "door-new", name: "Again" })).toBeUndefined();
  });

  it("refuses a rotated token on the next request", async () => {
    const app = (await createApplication(database.db, { id: "door-rotate", name: "Rotate" }))!;
    // The row is now in memory.
    expect((await get(app.id, app.apiToken)).status).toBe(200);
    const rotated = await rotateApiToken(database.db, app.id);
    expect(rotated).toMatch(/^[0-9a-f]{48}$/);
    expect(await get(app.id, app.apiToken)).toMatchObject({
      status: 401,
      code: ErrorCode.unauthorized,
    });
    expect((await get(app.id, rotated!)).status).toBe(200);
    expect(await rotateApiToken(database.db, "door-nowhere")).toBeUndefined();
  });

  it("applies a new rate limit on the next request, with buckets sized for it", async () => {
    const app = (await createApplication(database.db, { id: "door-limit", name: "Limit" }))!;
    expect((await get(app.id, app.apiToken)).headers.get("x-ratelimit-limit")).toBeNull();

    expect(await setApplicationRateLimit(database.db, app.id, { get: 1 })).toBe(true);
    const limited = await get(app.id, app.apiToken);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("1;w=1");
    // The one-second bucket is empty now.
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");

    expect(await setApplicationRateLimit(database.db, app.id, { get: 50 })).toBe(true);
    const raised = await get(app.id, app.apiToken);
    expect(raised.status).toBe(200);
    // A fresh bucket at the new limit, not the emptied one refilling.
    expect(raised.headers.get("x-ratelimit-limit")).toBe("50;w=1");
    expect(raised.headers.get("x-ratelimit-remaining")).toBe("49");

    expect(await setApplicationRateLimit(database.db, app.id, null)).toBe(true);
    expect((await get(app.id, app.apiToken)).headers.get("x-ratelimit-limit")).toBeNull();
    expect(await setApplicationRateLimit(database.db, "door-nowhere", { get: 5 })).toBe(false);
  });

  it("shows new webhook settings on the next read", async () => {
    const app = (await createApplication(database.db, { id: "door-hooks", name: "Hooks" }))!;
    const path = `/v1/applications/${app.id}/settings/webhook`;
    const read = async () => (await get(app.id, app.apiToken, path)).body.webhook;
    expect(await read()).toMatchObject({ enabled: false });
    const stored = await updateWebhookSettings(database.db, app.id, (settings) => ({
      ...settings,
      enabled: true,
      url: "https://hooks.example.com/door",
    }));
    expect(stored).toMatchObject({ enabled: true, url: "https://hooks.example.com/door" });
    expect(await read()).toMatchObject({ enabled: true, url: "https://hooks.example.com/door" });
    expect(await updateWebhookSettings(database.db, "door-nowhere", (s) => s)).toBeUndefined();
  });

  it("forgets a deleted application at once, and a new one under its id starts afresh", async () => {
    const app = (await createApplication(database.db, { id: "door-delete", name: "Delete" }))!;
    await setApplicationRateLimit(database.db, app.id, { get: 2 });
    expect((await get(app.id, app.apiToken)).headers.get("x-ratelimit-remaining")).toBe("1");

    expect(await deleteApplication(database.db, app.id)).toBe("deleted");
    expect((await get(app.id, app.apiToken)).code).toBe(ErrorCode.noSuchApplication);
    expect(await deleteApplication(database.db, app.id)).toBe("missing");

    const again = (await createApplication(database.db, { id: app.id, name: "Again" }))!;
    await setApplicationRateLimit(database.db, app.id, { get: 2 });
    // The old application's half-spent bucket is not the new one's.
    expect((await get(app.id, again.apiToken)).headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await get(app.id, app.apiToken)).code).toBe(ErrorCode.unauthorized);
  });

  it("never deletes the default application, and takes a new token for it from the environment", async () => {
    expect(await deleteApplication(database.db, "local")).toBe("default");
    expect((await get("local", "door_default_token_0123456789")).status).toBe(200);
    await ensureDefaultApplication(database.db, "local", "door_default_token_renewed_012");
    expect((await get("local", "door_default_token_0123456789")).code).toBe(ErrorCode.unauthorized);
    expect((await get("local", "door_default_token_renewed_012")).status).toBe(200);
  });
});
