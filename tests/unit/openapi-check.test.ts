import fs from "node:fs";
import path from "node:path";
import { createSandboxApp } from "@/lib/sandbox/app";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  checkAgainstDescription,
  contractOperations,
  sandboxRoutesFor,
  type ContractOperation,
  type OpenApiDocument,
} from "../support/openapi-check";

const fixture = path.join(import.meta.dirname, "../fixtures/platform-openapi.json");
const description = () =>
  JSON.parse(fs.readFileSync(fixture, "utf8")) as OpenApiDocument & {
    "x-source": { commit: string };
  };

describe("the sandbox's schemas against the platform's OpenAPI description", () => {
  it("names its source: the vendor's repository, file and commit", () => {
    expect(description()["x-source"]).toMatchObject({
      repository: "https://github.com/sendbird/sendbird-platform-sdk-java",
      path: "api/openapi.yaml",
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
  });

  it("agrees on every operation of the contract: parameters, required fields, field types", () => {
    expect(checkAgainstDescription(description())).toEqual([]);
  });

  it("serves every operation of the contract, at the description's path and method", () => {
    const app = createSandboxApp({
      getDb: () => Promise.reject(new Error("not needed to list routes")),
      config: {
        defaultAppId: "local",
        rateLimit: null,
        faults: { errorRate: 0, hangRate: 0, latencyMs: 0 },
        webhookTimeoutMs: 1000,
      },
    });
    const served = new Set(
      app.routes.map(
        (route) =>
          `${route.method} ${route.path.replace("/sandbox/:appId", "").replace(/:[a-z_]+/g, ":param")}`,
      ),
    );
    const missing = contractOperations.flatMap((operation) =>
      sandboxRoutesFor(operation)
        .map((route) => `${operation.method.toUpperCase()} ${route}`)
        .filter((route) => !served.has(route)),
    );
    expect(missing).toEqual([]);
  });
});

describe("the checker", () => {
  const users = contractOperations.find(
    (operation) => operation.method === "get" && operation.path === "/v3/users",
  )!;

  it("fails, naming the field, when the platform renames a response field", () => {
    const renamed = description();
    const user = renamed.components.schemas.SendbirdUser!;
    user.properties = Object.fromEntries(
      Object.entries(user.properties ?? {}).map(([name, schema]) => [
        name === "nickname" ? "nick_name" : name,
        schema,
      ]),
    );
    expect(checkAgainstDescription(renamed, [users])).toEqual([
      'GET /v3/users response field "users.nickname" is not in the platform\'s description',
    ]);
  });

  it("fails, naming the parameter, when the platform renames a query parameter", () => {
    const renamed = description();
    const parameter = renamed.paths["/v3/users"]!.get!.parameters.find((p) => p.name === "token")!;
    parameter.name = "page_token";
    expect(checkAgainstDescription(renamed, [users])).toEqual([
      'GET /v3/users query field "token" is not in the platform\'s description',
    ]);
  });

  it("fails, naming the field, when the sandbox renames one, or answers another type", () => {
    const ours: ContractOperation = {
      ...users,
      response: z.object({
        users: z.array(z.object({ user_id: z.string(), nick: z.string(), is_active: z.string() })),
        next: z.string(),
      }),
    };
    expect(checkAgainstDescription(description(), [ours])).toEqual([
      'GET /v3/users response field "users.nick" is not in the platform\'s description',
      'GET /v3/users response field "users.is_active": string here, boolean in the description',
    ]);
  });

  it("fails when a field the platform requires is optional in a request, or missing", () => {
    const create = contractOperations.find(
      (operation) => operation.method === "post" && operation.path === "/v3/users",
    )!;
    const loose: ContractOperation = {
      ...create,
      body: z.object({ user_id: z.string(), nickname: z.string().optional() }),
    };
    expect(checkAgainstDescription(description(), [loose])).toEqual([
      'POST /v3/users body field "nickname" is required by the platform, optional here',
      'POST /v3/users body field "profile_url", required by the platform, is missing here',
    ]);
  });
});
