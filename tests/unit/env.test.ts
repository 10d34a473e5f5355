import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";

/** The message a bad `variables` stop the process with. */
function refusal(variables: Record<string, string>): string {
  try {
    parseEnv(variables);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(variables)}`);
}

describe("lib/env.ts", () => {
  it("gives the documented defaults when nothing is set", () => {
    expect(parseEnv({})).toMatchObject({
      PORT: 3000,
      SANDBOX_PORT: 3001,
      SANDBOX_HOST: "127.0.0.1",
      IMPORT_WORKER_EXIT_WHEN_IDLE: false,
      SANDBOX_EXIT_WITH_PARENT: false,
    });
  });

  it("reads ports, listen addresses and flags", () => {
    expect(
      parseEnv({
        PORT: "8080",
        SANDBOX_PORT: "0",
        SANDBOX_HOST: "::1",
        IMPORT_WORKER_EXIT_WHEN_IDLE: "1",
        SANDBOX_EXIT_WITH_PARENT: "true",
      }),
    ).toMatchObject({
      PORT: 8080,
      SANDBOX_PORT: 0,
      SANDBOX_HOST: "::1",
      IMPORT_WORKER_EXIT_WHEN_IDLE: true,
      SANDBOX_EXIT_WITH_PARENT: true,
    });
    expect(parseEnv({ SANDBOX_HOST: "localhost" }).SANDBOX_HOST).toBe("localhost");
    expect(parseEnv({ SANDBOX_HOST: "0.0.0.0" }).SANDBOX_HOST).toBe("0.0.0.0");
    expect(parseEnv({ IMPORT_WORKER_EXIT_WHEN_IDLE: "0" }).IMPORT_WORKER_EXIT_WHEN_IDLE).toBe(
      false,
    );
  });

  it.each(["", "abc", "-1", "65536", "80.5", "3000 ", "1e3", "123456"])(
    "refuses PORT=%j and SANDBOX_PORT=%j, naming the variable",
    (value) => {
      expect(refusal({ PORT: value })).toContain("PORT: must be a port number from 0 to 65535");
      expect(refusal({ SANDBOX_PORT: value })).toContain(
        "SANDBOX_PORT: must be a port number from 0 to 65535",
      );
    },
  );

  it.each(["", "http://127.0.0.1", "127.0.0.1:3001", "host name", "-leading.dash", "a..b"])(
    "refuses SANDBOX_HOST=%j",
    (value) => {
      expect(refusal({ SANDBOX_HOST: value })).toContain(
        "SANDBOX_HOST: must be an IP address or a host name",
      );
    },
  );

  it.each(["yes", "TRUE", "", "2"])("refuses the flags set to %j", (value) => {
    expect(refusal({ IMPORT_WORKER_EXIT_WHEN_IDLE: value })).toContain(
      "IMPORT_WORKER_EXIT_WHEN_IDLE: must be true or false",
    );
    expect(refusal({ SANDBOX_EXIT_WITH_PARENT: value })).toContain(
      "SANDBOX_EXIT_WITH_PARENT: must be true or false",
    );
  });

  it("names every bad variable at once", () => {
    const message = refusal({ PORT: "http", SANDBOX_HOST: "a b", SESSION_TTL_HOURS: "0" });
    expect(message).toMatch(/^Invalid environment configuration:/);
    for (const name of ["PORT", "SANDBOX_HOST", "SESSION_TTL_HOURS"])
      expect(message).toContain(`  ${name}:`);
  });
});
