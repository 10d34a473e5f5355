import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/client";
import { lockDataDir, pgliteLockStaleMs } from "@/lib/db/pglite-lock";

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

  /**
   * Starts a process that takes the lock on a fresh directory and keeps it; `shell` runs it
   * under a shell that never reaps it, so that once killed it stays a zombie.
   */
  async function startHolder({ shell = false } = {}) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-lock-"));
    const dataDir = path.join(root, "pglite");
    const script = `import(${JSON.stringify(path.resolve("lib/db/pglite-lock.ts"))}).then((m) => m.lockDataDir(${JSON.stringify(dataDir)})).then(() => { console.log("locked " + process.pid); setInterval(() => {}, 1000); })`;
    const node = [process.execPath, "--import", "tsx", "-e", script];
    const child = shell
      ? spawn("sh", ["-c", `"$0" "$@" & exec sleep 120`, ...node], {
          stdio: ["ignore", "pipe", "inherit"],
        })
      : spawn(node[0]!, node.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    const pid = await new Promise<number>((resolve, reject) => {
      let output = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /locked (\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      child.once("exit", (code) => reject(new Error(`the holder exited with ${code}`)));
    });
    return { dataDir, pid, child };
  }

  it("waits for a holder that stopped refreshing its lock, and takes it once the holder is killed", async () => {
    const holder = await startHolder();
    // Stopped, the holder is alive but refreshes nothing, as a process being torn down.
    process.kill(holder.pid, "SIGSTOP");
    let settled = false;
    const locking = lockDataDir(holder.dataDir).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(settled).toBe(false);
    const exited = new Promise((resolve) => holder.child.once("exit", resolve));
    process.kill(holder.pid, "SIGKILL");
    await exited;
    const release = await locking;
    expect(JSON.parse(fs.readFileSync(`${holder.dataDir}.lock.owner`, "utf8"))).toMatchObject({
      pid: process.pid,
    });
    await release();
  }, 30_000);

  it("takes over at once a lock whose holder was killed but not yet reaped (a zombie)", async () => {
    const holder = await startHolder({ shell: true });
    try {
      process.kill(holder.pid, "SIGKILL");
      // Its parent (sleep) never reaps it: the pid stays, as a zombie.
      await waitForZombie(holder.pid);
      expect(await timedLock(holder.dataDir)).toBeLessThan(pgliteLockStaleMs / 5);
    } finally {
      holder.child.kill("SIGKILL");
    }
  }, 30_000);

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
  }, 90_000);
});

async function waitForZombie(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`pid ${pid} did not become a zombie`);
}
