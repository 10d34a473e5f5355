import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { freePort } from "../support/console-server";
import { request, type Answer } from "./support/request";
import { serverActionId } from "./support/server-actions";

const root = path.resolve(import.meta.dirname, "../..");
const { origin, adminPassword } = inject("console");

function expectJsonRefusal(answer: Answer, status: number): void {
  expect(answer.status, answer.text.slice(0, 200)).toBe(status);
  expect(answer.headers["content-type"]).toContain("application/json");
  expect(JSON.parse(answer.text)).toMatchObject({
    message: expect.any(String),
    code: 400111,
    error: true,
  });
}

describe("/healthz", () => {
  it("answers signed out with the database and the workers, and no secrets", async () => {
    const answer = await request("/healthz");
    expect(answer.status).toBe(200);
    const health = JSON.parse(answer.text);
    expect(health).toMatchObject({ ok: true, database: { ok: true } });
    expect(health.workers.map((worker: { name: string }) => worker.name).sort()).toEqual([
      "import-jobs",
      "import-plans",
      "import-rehearsals",
      "webhook-outbox",
    ]);
    expect(health.workers.every((worker: { alive: boolean }) => worker.alive)).toBe(true);
    expect(answer.text).not.toMatch(/postgres:\/\/|api_token|password/i);
  });
});

describe("hostile requests at every layer", () => {
  it("refuses undecodable percent-encoding, NUL and surrogates in paths and queries with 400111", async () => {
    for (const target of [
      "/sandbox/local/v3/users/%zz",
      "/sandbox/local/v3/users/a%00b",
      "/settings?next=%ED%A0%80",
      "/sign-in/%E0%A4",
      "/imports?x=%",
    ]) {
      expectJsonRefusal(await request(target), 400);
    }
  });

  it("refuses a URL over 8 KB with 414, and over 16 KB too, in the JSON error shape", async () => {
    expectJsonRefusal(
      await request(`/sandbox/local/v3/users?user_ids=${"a".repeat(9 * 1024)}`),
      414,
    );
    expectJsonRefusal(await request(`/sign-in?next=${"a".repeat(20 * 1024)}`), 414);
  });

  it("answers oversized headers with a JSON 431, not Node's bare one", async () => {
    const answer = await request("/sign-in", { headers: { cookie: `x=${"a".repeat(20 * 1024)}` } });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.text)).toMatchObject({ error: true, code: 400111 });
  });
});

describe("sign-in throttling", () => {
  const signInAction = serverActionId("lib/actions/auth.ts", "signIn");

  /** Calls the sign-in server action the way the sign-in form does, from `from`. */
  async function signIn(password: string, from: string, headers: Record<string, string> = {}) {
    const answer = await request("/sign-in", {
      method: "POST",
      from,
      headers: {
        "next-action": signInAction!,
        accept: "text/x-component",
        "content-type": "text/plain;charset=UTF-8",
        origin,
        ...headers,
      },
      body: JSON.stringify([{ password, next: "/" }]),
    });
    if (answer.headers["x-action-redirect"] || answer.status === 303) return "signed-in";
    if (answer.text.includes("Wrong password")) return "checked";
    if (answer.text.includes("Too many failed sign-ins")) return "throttled";
    throw new Error(`unexpected answer ${answer.status}: ${answer.text.slice(0, 300)}`);
  }

  it("checks at most 3 of 50 parallel wrong guesses, whatever X-Forwarded-For says", async () => {
    expect(signInAction).toBeDefined();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        signIn(`wrong-${i}`, "127.0.0.2", { "x-forwarded-for": `198.51.100.${i}` }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "checked").length).toBeLessThanOrEqual(3);
    expect(outcomes.filter((outcome) => outcome === "throttled").length).toBeGreaterThanOrEqual(47);
  });

  it("lets the administrator sign in from a clean address while other addresses flood", async () => {
    let flooding = true;
    const flood = (from: string) =>
      (async () => {
        let sent = 0;
        while (flooding) {
          await signIn(`guess-${sent++}`, from);
        }
        return sent;
      })();
    const floods = ["127.0.0.4", "127.0.0.5", "127.0.0.6"].map(flood);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await signIn(adminPassword, "127.0.0.3"));
    flooding = false;
    const sent = await Promise.all(floods);
    expect(outcomes).toEqual(["signed-in", "signed-in", "signed-in"]);
    expect(sent.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(10);
  });
});

/** Starts `next start` with `env` and waits up to 5 s for it to exit. */
async function startExpectingExit(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [
      path.join(root, "node_modules/next/dist/bin/next"),
      "start",
      "--hostname",
      "127.0.0.1",
      "--port",
      String(await freePort()),
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DATA_DIR: fs.mkdtempSync("/tmp/switchboard-badconfig-"),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(null);
    }, 5000);
    child.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return { code, output, tookMs: Date.now() - started };
}

describe("fatal start-up errors", () => {
  it("a bad SANDBOX_API_TOKEN exits non-zero within 5 s with a message naming it", async () => {
    const { code, output, tookMs } = await startExpectingExit({ SANDBOX_API_TOKEN: "short" });
    expect(code, output).not.toBe(null);
    expect(code).not.toBe(0);
    expect(tookMs).toBeLessThan(5000);
    expect(output).toContain("Invalid configuration");
    expect(output).toContain("SANDBOX_API_TOKEN");
    expect(output).toContain("at least 16 characters");
  });

  it("an unreachable database exits non-zero naming the database", async () => {
    const { code, output } = await startExpectingExit({
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
    });
    expect(code, output).toBe(1);
    expect(output).toContain("Switchboard cannot start. The database cannot be used");
  });
});
