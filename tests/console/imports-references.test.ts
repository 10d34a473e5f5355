import { beforeAll, describe, expect, inject, it } from "vitest";
import { signIn } from "./support/sign-in";

/**
 * POST /imports/new/references over HTTP, as the wizard's preview calls it: which channels
 * and users of a batch exist neither on the platform nor in an import of this console.
 */

const { origin, sandboxToken } = inject("console");
const route = `${origin}/imports/new/references`;
// A browser's fetch: the proxy answers it with the route's own 401, not a redirect.
const fetchHeaders = { "content-type": "application/json", "sec-fetch-dest": "empty" };

async function sandbox(path: string, body: unknown) {
  const response = await fetch(`${origin}/sandbox/local/v3${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "Api-Token": sandboxToken },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

describe("POST /imports/new/references", () => {
  const p = `ref${Date.now().toString(36)}`;
  let cookie = "";

  beforeAll(async () => {
    cookie = await signIn();
    await sandbox("/users", { user_id: `${p}-ada`, nickname: "Ada", profile_url: "" });
    await sandbox("/group_channels", { channel_url: `${p}-general`, user_ids: [`${p}-ada`] });
    await sandbox("/open_channels", { channel_url: `${p}-lobby`, name: "Lobby" });
    await sandbox("/users", { user_id: `${p}-gone`, nickname: "Gone", profile_url: "" });
    const deactivated = await fetch(`${origin}/sandbox/local/v3/users/${p}-gone`, {
      method: "PUT",
      headers: { "content-type": "application/json", "Api-Token": sandboxToken },
      body: JSON.stringify({ is_active: false }),
    });
    expect(deactivated.status).toBe(200);
  });

  const ask = (body: unknown, headers: Record<string, string> = { cookie }) =>
    fetch(route, {
      method: "POST",
      headers: { ...fetchHeaders, ...headers },
      body: JSON.stringify(body),
    });

  it("answers a signed-out caller 401 and looks nothing up", async () => {
    const response = await ask({ resource: "messages", channels: [`${p}-general`] }, {});
    expect(response.status).toBe(401);
    expect(await response.json()).not.toHaveProperty("channels");
  });

  it("names the channels (open or group) and users that exist nowhere, and only those", async () => {
    const response = await ask({
      resource: "messages",
      channels: [`${p}-general`, `${p}-lobby`, `${p}-nowhere`],
      users: [`${p}-ada`, `${p}-ghost`],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("no-store");
    expect(await response.json()).toEqual({ channels: [`${p}-nowhere`], users: [`${p}-ghost`] });
  });

  it("counts a deactivated user as existing, for a message's sender as for a channel's member", async () => {
    for (const resource of ["messages", "group_channels"]) {
      const response = await ask({ resource, channels: [], users: [`${p}-gone`] });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ channels: [], users: [] });
    }
  });

  it("refuses more than 1,000 values of a kind, and a body that is not a JSON object", async () => {
    const tooMany = await ask({
      resource: "messages",
      channels: Array.from({ length: 1001 }, (_, i) => `${p}-${i}`),
    });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error).toContain("At most 1000 channels per request.");
    const notJson = await fetch(route, {
      method: "POST",
      headers: { ...fetchHeaders, cookie },
      body: "[1, 2]",
    });
    expect(notJson.status).toBe(400);
    const noResource = await ask({ channels: [] });
    expect(noResource.status).toBe(400);
  });
});
