/**
 * The import preview in headless Chromium: from picking a file (a users CSV, a messages NDJSON)
 * to every row validated, the longest main-thread task meanwhile, and memory. The rows are
 * read and validated in a worker; the page must stay responsive while it happens (targets:
 * users, 100,000 rows in ≤ 3 s with no task over 200 ms; messages, 1,000,000 rows in ≤ 10 s
 * with no task over 100 ms).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { startConsoleServer } from "../support/console-server";
import { bigMessagesNdjson, bigUsersCsv } from "../fixtures/imports";
import { chromiumLaunch, isBuilt, machine, today } from "./support";

type Kind = "Users" | "Messages";

type Run = {
  kind: Kind;
  rows: number;
  megabytes: number;
  readMs: number;
  validateMs: number;
  longestTaskMs: number;
  longTasks: number;
  peakRendererMb: number;
  mainHeapMb: number;
};

const defaultRuns: ReadonlyArray<{ kind: Kind; rows: number }> = [
  { kind: "Users", rows: 100_000 },
  { kind: "Users", rows: 1_000_000 },
  { kind: "Messages", rows: 1_000_000 },
];

export async function benchPreview(
  planned: ReadonlyArray<{ kind: Kind; rows: number }> = defaultRuns,
): Promise<string> {
  if (!isBuilt()) throw new Error("The console is not built: run `npx next build` first.");
  const server = await startConsoleServer();
  const marker = `--switchboard-bench=${randomUUID()}`;
  const browser = await chromium.launch({
    ...chromiumLaunch,
    args: [...chromiumLaunch.args, marker],
  });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-preview-"));
  const runs: Run[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript(() => {
      const tasks: Array<{ start: number; duration: number }> = [];
      (window as unknown as { __longTasks: typeof tasks }).__longTasks = tasks;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          tasks.push({ start: entry.startTime, duration: entry.duration });
      }).observe({ type: "longtask", buffered: true });
    });
    const page = await context.newPage();
    await page.goto(`${server.origin}/sign-in`);
    await page.getByLabel("Administrator password").fill(server.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();

    for (const { kind, rows } of planned) {
      const file =
        kind === "Users"
          ? path.join(directory, `users-${rows}.csv`)
          : path.join(directory, `messages-${rows}.ndjson`);
      fs.writeFileSync(file, kind === "Users" ? bigUsersCsv(rows) : bigMessagesNdjson(rows));
      runs.push(await measure(page, server.origin, file, kind, rows, marker));
      fs.rmSync(file);
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
  return table(runs);
}

async function measure(
  page: Page,
  origin: string,
  file: string,
  kind: Kind,
  rows: number,
  marker: string,
): Promise<Run> {
  // The previous run's file is kept as a draft (IndexedDB, idb-keyval's store): each run starts fresh.
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        const request = indexedDB.deleteDatabase("keyval-store");
        request.onsuccess = request.onerror = request.onblocked = () => resolve(null);
      }),
  );
  await page.goto(`${origin}/imports/new`);
  await page.getByRole("radio", { name: new RegExp(kind) }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.evaluate(() => {
    const marks = ((window as unknown as { __marks: Record<string, number> }).__marks =
      {} as Record<string, number>);
    document.addEventListener("change", () => (marks.picked ??= performance.now()), {
      capture: true,
    });
    document.addEventListener(
      "click",
      (event) => {
        if ((event.target as HTMLElement).closest("button")?.textContent?.startsWith("Validate"))
          marks.validate = performance.now();
      },
      { capture: true },
    );
  });
  const sampler = sampleRendererMemory(marker);
  await page.getByLabel("File to import").setInputFiles(file);
  const ready = await page.waitForFunction(
    () => {
      const button = [...document.querySelectorAll("button")].find(
        (element) => element.textContent === "Continue to mapping",
      );
      return button && !button.disabled ? performance.now() : null;
    },
    undefined,
    { polling: "raf", timeout: 300_000 },
  );
  const readyAt = (await ready.jsonValue()) as number;
  const refusal = page.getByRole("alert").filter({ hasText: "cannot be imported" });
  if ((await refusal.count()) > 0)
    throw new Error(`The preview refused the file: ${await refusal.first().textContent()}`);
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: /^Validate/ }).click();
  const done = await page.waitForFunction(
    () => (document.querySelector('[data-testid="count-rows"]') ? performance.now() : null),
    undefined,
    {
      polling: "raf",
      timeout: 600_000,
    },
  );
  const doneAt = (await done.jsonValue()) as number;
  // Scroll the table end to end, as an administrator would, while still watching for long tasks.
  await page.getByTestId("preview-scroller").evaluate(async (scroller) => {
    for (let step = 0; step <= 20; step++) {
      scroller.scrollTop = (scroller.scrollHeight * step) / 20;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  const peakRendererMb = await sampler.stop();
  const result = await page.evaluate(() => {
    const { __marks: marks, __longTasks: tasks } = window as unknown as {
      __marks: Record<string, number>;
      __longTasks: Array<{ start: number; duration: number }>;
    };
    const during = tasks.filter((task) => task.start >= (marks.picked ?? 0));
    const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
    return {
      marks,
      during,
      longest: Math.max(0, ...during.map((task) => task.duration)),
      count: during.length,
      heap: memory?.usedJSHeapSize ?? 0,
    };
  });
  if (process.env.BENCH_DEBUG)
    console.log(JSON.stringify({ marks: result.marks, readyAt, doneAt, tasks: result.during }));
  const counted = (await page.getByTestId("count-rows").textContent())?.replaceAll(",", "");
  if (Number(counted) !== rows)
    throw new Error(`The preview counted ${counted} rows, not ${rows}.`);
  return {
    kind,
    rows,
    megabytes: fs.statSync(file).size / 2 ** 20,
    readMs: readyAt - result.marks.picked!,
    validateMs: doneAt - result.marks.validate!,
    longestTaskMs: result.longest,
    longTasks: result.count,
    peakRendererMb,
    mainHeapMb: result.heap / 2 ** 20,
  };
}

/** Peak resident memory of the bench browser's renderer processes (the page and its worker share one). */
function sampleRendererMemory(marker: string): { stop: () => Promise<number> } {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rendererRssKb(marker));
  }, 100);
  return {
    stop: async () => {
      clearInterval(timer);
      return peak / 1024;
    },
  };
}

function rendererRssKb(marker: string): number {
  const parents = new Map<number, number>();
  let browserPid = -1;
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (browserPid < 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker))
        browserPid = pid;
    } catch {
      // Processes come and go while we look.
    }
  }
  let total = 0;
  for (const pid of parents.keys()) {
    let ancestor = parents.get(pid);
    while (ancestor !== undefined && ancestor > 1 && ancestor !== browserPid)
      ancestor = parents.get(ancestor);
    if (ancestor !== browserPid) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) continue;
      total += Number(
        /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0,
      );
    } catch {
      // Gone.
    }
  }
  return total;
}

function table(runs: Run[]): string {
  const format = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 });
  const lines = [
    `Import preview in headless Chromium (${machine()}, ${today()}). "Read" is file pick to rows counted (encoding check + streaming parse in the worker); "validate" is the Validate click to every row checked (prepareRow + cross-row rules in the worker). Targets: users, 100,000 rows in read + validate ≤ 3 s with no main-thread task over 200 ms; messages (NDJSON), 1,000,000 rows in ≤ 10 s with no task over 100 ms.`,
    "",
    "| file | rows | file (MB) | read (ms) | validate (ms) | read + validate (ms) | longest main-thread task (ms) | tasks over 50 ms | peak renderer memory (MB) | main-thread JS heap after (MB) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...runs.map(
      (run) =>
        `| ${run.kind === "Users" ? "users CSV" : "messages NDJSON"} | ${run.rows.toLocaleString("en-US")} | ${run.megabytes.toFixed(1)} | ${format(run.readMs)} | ${format(run.validateMs)} | ${format(run.readMs + run.validateMs)} | ${format(run.longestTaskMs)} | ${run.longTasks} | ${format(run.peakRendererMb)} | ${run.mainHeapMb.toFixed(1)} |`,
    ),
  ];
  return lines.join("\n");
}

// `npx tsx tests/bench/preview.ts [users:ROWS | messages:ROWS ...]` runs it alone.
if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const planned = process.argv.slice(2).flatMap((argument) => {
    const [kind, rows] = argument.split(":");
    const count = Number(rows);
    if (!(count > 0) || (kind !== "users" && kind !== "messages")) return [];
    return [{ kind: kind === "users" ? ("Users" as const) : ("Messages" as const), rows: count }];
  });
  console.log(await benchPreview(planned.length > 0 ? planned : undefined));
  process.exit(0);
}
