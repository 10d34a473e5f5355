import { describe, expect, it, vi } from "vitest";

const token = "remote-secret-token-1234";

// The database refuses the insert the way Drizzle reports it: the query and its parameters.
vi.mock("@/lib/db/client", () => ({
  getDb: async () => ({
    insert: () => ({
      values: async (row: { sealedApiToken: string }) => {
        throw new Error(
          `Failed query: insert into "platform_targets" params: ${row.sealedApiToken}`,
          {
            cause: new Error(
              'duplicate key value violates unique constraint "platform_targets_pkey"',
            ),
          },
        );
      },
    }),
  }),
}));

describe("storing a remote target", () => {
  it("passes on the database's reason, never the token in the failed query's parameters", async () => {
    const { candidateTarget, storeRemoteTarget } = await import("@/lib/targets/store");
    const target = candidateTarget({
      name: "Production",
      appId: "app",
      chatBaseUrl: "https://api-app.example.com",
      apiToken: token,
      environment: "production",
    });
    const failure = await storeRemoteTarget(target).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toBe(
      'The target could not be saved: duplicate key value violates unique constraint "platform_targets_pkey".',
    );
    const encoded = Buffer.from(token).toString("base64url");
    expect(JSON.stringify(failure, Object.getOwnPropertyNames(failure))).not.toContain(encoded);
    expect(String(failure?.stack)).not.toContain(encoded);
  });
});
