import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runCompatibilityCheck } from "@/lib/conformance/compatibility";
import { createPlatformClient } from "@/lib/platform/client";
import { createUsers } from "../fixtures/chat";
import { call, sharedSandbox } from "./support/http";

const clientFor = (baseUrl: string, apiToken: string) =>
  createPlatformClient({ appId: "local", chatBaseUrl: baseUrl, callsBaseUrl: baseUrl, apiToken });

describe("compatibility check", () => {
  const sandbox = sharedSandbox();

  it("finds every read-only operation of the sandbox as expected", async () => {
    const users = await createUsers(sandbox, 2, "compat");
    await call(sandbox, "POST", "/v3/group_channels", { user_ids: users });
    const results = await runCompatibilityCheck(clientFor(sandbox.baseUrl, sandbox.token));
    expect(results.filter((row) => row.outcome !== "pass")).toEqual([]);
    expect(results.map((row) => row.operation)).toContain("GET /v3/users (paging with token)");
    expect(
      results.find((row) => row.operation === "GET /v3/users (paging with token)")?.detail,
    ).toBe("the second page follows the first");
    expect(results.find((row) => row.operation === "GET webhook settings")?.detail).toBe(
      "13 categories listed",
    );
  });

  it("names the operation and the field when a remote platform answers something else", async () => {
    // A platform that renamed nickname, and ignores token and filters.
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      res.writeHead(200, { "content-type": "application/json" });
      if (url.pathname.endsWith("/settings/webhook"))
        return res.end(
          JSON.stringify({
            webhook: { enabled: false, url: "", include_members: false, enabled_events: [] },
          }),
        );
      if (url.pathname === "/v3/users") {
        const user = {
          user_id: "same",
          nick_name: "A",
          profile_url: "",
          is_online: false,
          is_active: true,
          last_seen_at: -1,
          metadata: {},
        };
        return res.end(JSON.stringify({ users: [user], next: "more" }));
      }
      res.end(JSON.stringify({ channels: [], next: "" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const results = await runCompatibilityCheck(clientFor(origin, "t"));
      const paging = results.find((row) => row.operation === "GET /v3/users (paging with token)");
      expect(paging).toMatchObject({ outcome: "fail" });
      expect(paging?.detail).toContain(
        'users.list: the platform answered an unexpected "users.0.nickname"',
      );
      expect(results.find((row) => row.operation === "GET webhook settings")?.outcome).toBe("pass");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
