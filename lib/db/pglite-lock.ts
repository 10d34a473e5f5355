import fs from "node:fs";
import path from "node:path";

/**
 * A lock whose holder stopped refreshing it for this long belongs to a dead process. Only a
 * lock without a readable owner file waits for this (a crash between taking the lock and
 * writing the file); generous, because a holder whose event loop stalls this long gives up
 * its lock and stops.
 */
export const pgliteLockStaleMs = 30_000;

/** How often the holder refreshes its lock, and how often a waiting start looks again. */
const refreshMs = 1000;
const watchMs = 100;

/**
 * PGlite is an embedded database: two processes writing one data directory corrupt it.
 * The lock is a directory (proper-lockfile) whose mtime its holder refreshes every second, so
 * a lock nobody refreshes for pgliteLockStaleMs is taken over. Beside it, a .owner file names the
 * holder by pid and the pid's start time: a holder that is gone, is exiting or is a zombie, or
 * whose pid now belongs to a process started at another time, is known dead at once, so a
 * restart right after a crash does not wait for the lock to turn stale, and a reused pid cannot
 * keep it. A holder that still runs but has stopped refreshing (a process being killed, where
 * the system does not tell) is waited for; one that refreshes its lock is refused.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockfile = await import("proper-lockfile");
  const lockPath = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
  // Earlier versions wrote a plain file holding a pid here; it proves nothing, remove it.
  if (fs.statSync(lockPath, { throwIfNoEntry: false })?.isFile())
    fs.rmSync(lockPath, { force: true });
  const ownerFile = `${lockPath}.owner`;
  // The owner file speaks for the lock only while the lock exists.
  const holder = fs.existsSync(lockPath) ? readLockOwner(ownerFile) : undefined;
  const inUse = () =>
    new Error(
      `The database directory ${dataDir} is in use by another running process${holder ? ` (pid ${holder.pid})` : ""}. ` +
        "Embedded PGlite can be opened by one process only: stop that process, " +
        "give this one its own DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.",
    );
  if (holder && holder.pid !== process.pid && isSameProcessAlive(holder)) {
    if (await holderKeepsLock(lockPath, holder, dataDir)) throw inUse();
  }
  if (holder && !isSameProcessAlive(holder)) fs.rmSync(lockPath, { recursive: true, force: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dataDir, {
      lockfilePath: lockPath,
      realpath: false,
      stale: pgliteLockStaleMs,
      update: refreshMs,
      // A lock without an owner we can judge turns stale within pgliteLockStaleMs: wait that long.
      retries: {
        retries: Math.ceil((pgliteLockStaleMs + 2000) / 500),
        minTimeout: 500,
        maxTimeout: 500,
        factor: 1,
      },
      onCompromised: (error) => {
        // Another process may be writing the directory now: stopping is the only safe answer.
        console.error(`[database] lost the lock on ${dataDir} (${error.message}); stopping.`);
        process.exit(1);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") throw inUse();
    throw error;
  }
  fs.writeFileSync(
    ownerFile,
    JSON.stringify({ pid: process.pid, startTime: processStat(process.pid)?.startTime }),
  );
  return async () => {
    fs.rmSync(ownerFile, { force: true });
    await release();
  };
}

/**
 * Watches a live holder's lock: true once the holder refreshes it (it runs: refuse), or when
 * it neither refreshes nor goes for pgliteLockStaleMs (stopped, e.g. SIGSTOP: refuse rather
 * than write beside it); false once the holder is gone or has let go of the lock.
 */
async function holderKeepsLock(
  lockPath: string,
  holder: LockOwner,
  dataDir: string,
): Promise<boolean> {
  const seenMtime = lockMtime(lockPath);
  const deadline = Date.now() + pgliteLockStaleMs;
  let announced = false;
  for (;;) {
    if (!isSameProcessAlive(holder) || lockMtime(lockPath) === undefined) return false;
    if (lockMtime(lockPath) !== seenMtime) return true;
    if (Date.now() >= deadline) return true;
    // A running holder refreshes within a second; say why the start waits only when it does not.
    if (!announced && Date.now() - (seenMtime ?? 0) > 2 * refreshMs) {
      announced = true;
      console.log(
        `[database] ${dataDir} is still held by pid ${holder.pid}, which no longer refreshes its ` +
          `lock (exiting?); waiting up to ${pgliteLockStaleMs / 1000} s for it to end.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, watchMs));
  }
}

function lockMtime(lockPath: string): number | undefined {
  return fs.statSync(lockPath, { throwIfNoEntry: false })?.mtimeMs;
}

type LockOwner = { pid: number; startTime?: string };

function readLockOwner(ownerFile: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(ownerFile, "utf8")) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's holder still runs: its pid is alive, is neither exiting nor a zombie and,
 * where the system says, started when the holder did.
 */
function isSameProcessAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = processStat(owner.pid);
  if (stat?.exiting) return false;
  return owner.startTime === undefined || stat === undefined || stat.startTime === owner.startTime;
}

/** PF_EXITING in /proc/<pid>/stat's flags: the process is being torn down (after SIGKILL, say). */
const processExitingFlag = 0x4;

/**
 * From Linux's /proc/<pid>/stat: the start time in clock ticks since boot, and whether the
 * process is on its way out (exiting, a zombie, dead). Undefined elsewhere.
 */
function processStat(pid: number): { startTime: string; exiting: boolean } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses, so count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state = "", flags = "0", startTime = ""] = [fields[0], fields[6], fields[19]];
    return {
      startTime,
      exiting: /^[ZXx]$/.test(state) || (Number(flags) & processExitingFlag) !== 0,
    };
  } catch {
    return undefined;
  }
}
