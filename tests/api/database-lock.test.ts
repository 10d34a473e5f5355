import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir, openDatabase, pgliteLockStaleMs, type DatabaseHandle } from "@/lib/db/client";

/** The embedded PGlite lock (lib/db/client.ts): a crash or a reused pid never blocks a start. */
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("the PGlite data directory lock", () => {
  const handles: DatabaseHandle[] = [];
  afterEach(async () => {
    while (handles.length) await handles.pop()!.close();
  });

  function leftBehindLock(owner: object) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-lock-"));
    const dataDir = path.join(root, "pglite");
    fs.mkdirSync(`${dataDir}.lock`, { recursive: true });
    fs.writeFileSync(`${dataDir}.lock.owner`, JSON.stringify(owner));
    return dataDir;
  }

  /** How long taking the lock took; well under the stale time means the owner check decided. */
  async function timedLock(dataDir: string) {
    const started = Date.now();
    const release = await lockDataDir(dataDir);
    const took = Date.now() - started;
    expect(JSON.parse(fs.readFileSync(`${dataDir}.lock.owner`, "utf8"))).toMatchObject({
      pid: process.pid,
    });
    await release();
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
    return took;
  }

  it("takes over at once a lock whose holder has exited", async () => {
    const child = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => child.once("exit", resolve));
    // The lock was just refreshed, so only the owner check can tell that it is dead.
    expect(await timedLock(leftBehindLock({ pid: child.pid, startTime: "1" }))).toBeLessThan(
      pgliteLockStaleMs / 5,
    );
  });

  it("takes over at once a lock whose pid now belongs to another process", async () => {
    // Our own pid, as a reused one would be, with another start time.
    expect(await timedLock(leftBehindLock({ pid: process.pid, startTime: "1" }))).toBeLessThan(
      pgliteLockStaleMs / 5,
    );
  });

  it("takes over a lock nobody refreshes, even without an owner file", async () => {
    const dataDir = leftBehindLock({});
    fs.rmSync(`${dataDir}.lock.owner`);
    const old = new Date(Date.now() - pgliteLockStaleMs - 1000);
    fs.utimesSync(`${dataDir}.lock`, old, old);
    expect(await timedLock(dataDir)).toBeLessThan(pgliteLockStaleMs / 5);
  });

  it("refuses a directory held by a live process, naming it", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-lock-"));
    const dataDir = path.join(root, "pglite");
    handles.push(await openDatabase({ dataDir }));
    const owner = JSON.parse(fs.readFileSync(`${dataDir}.lock.owner`, "utf8")) as { pid: number };
    expect(owner.pid).toBe(process.pid);
    // Seen from another process: the same live holder.
    const other = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import("${path.resolve("lib/db/client.ts")}").then((m) => m.openDatabase({ dataDir: ${JSON.stringify(dataDir)} })).then(() => process.exit(0), (e) => { console.error(e.message); process.exit(3); })`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    other.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => other.once("exit", resolve));
    expect(code, stderr).toBe(3);
    expect(stderr).toContain(`in use by another running process (pid ${process.pid})`);
  }, 30_000);
});
