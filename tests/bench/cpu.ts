import fs from "node:fs";

// Linux reports CPU time in clock ticks of 1/100 s (USER_HZ).
const msPerTick = 10;

/** CPU time (user + system) process `pid` has used so far, in ms; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * msPerTick;
  } catch {
    return 0;
  }
}

/** CPU time of every `postgres` process of the machine (the server and its backends), in ms. */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres")
        total += processCpuMs(Number(entry));
    } catch {
      // Ended meanwhile.
    }
  }
  return total;
}

/** CPU time the whole machine has used so far, all cores together, in ms. */
export function machineCpuMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = fs
    .readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * msPerTick;
}
