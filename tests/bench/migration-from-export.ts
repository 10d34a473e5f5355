/**
 * Issue 24's end-to-end target: a generated Slack export (20,000 people, 2,000 channels,
 * 2,000,000 messages, 15 % replies, 10 % with reactions) taken from the drop to a verified
 * rehearsal in the browser, ≤ 10 minutes, the tab's JS heap ≤ 1 GB and the console's RSS
 * ≤ 2 GB throughout.
 *
 * The built console (`lib/console-server.ts`, a data directory of its own) is driven by
 * Debian's Chromium through Playwright as an administrator drives it: drop the ZIP, the
 * summary, the forecast, "Create the imports", their plans, then each import in the
 * platform's order rehearsed in a scratch application and that rehearsal verified. A sampler
 * reads, every second, the tab's JS heap (CDP `Performance.getMetrics`), the export worker's
 * (`performance.memory` in the worker) and the RSS of the console's and the tab's processes
 * from /proc; each stage's wall time and peaks go into the table.
 *
 * The export is generated once into the system's temporary folder (as slack-reader's, and
 * shared with it at the same size). BENCH_EXPORT_MESSAGES (and BENCH_EXPORT_PEOPLE,
 * BENCH_EXPORT_CHANNELS) set a smaller export for development. The console runs on a free port
 * (on TEST_DATABASE_URL when set, as the tests' consoles do). BENCH_DEADLINE_MINUTES stops the run after that long and
 * records how far each stage got; BENCH_CPU_PROF=<dir> writes the console's CPU profile there. Needs `npx next build` first.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Locator, type Page } from "@playwright/test";
import { benchSlackExport, writeSlackExport, type SlackExportSize } from "./slack-export";
import { startConsoleServer } from "../support/console-server";
import { chromiumLaunch, isBuilt, today } from "./support";

const STAGE_TIMEOUT = 3 * 3600 * 1000;
const PASSWORD = "bench-admin-password-123";
const TAB_HEAP_LIMIT = 2 ** 30;
const CONSOLE_RSS_LIMIT = 2 * 2 ** 30;
/** Drop, forecast, create, plans, and a rehearsal and its Verify for each of the three imports. */
const STAGES = 10;

type Peaks = {
  /** CPU seconds the console's processes and the tab's renderers used in the stage. */
  consoleCpu: number;
  tabCpu: number;
  tabHeap: number;
  workerHeap: number | null;
  tabRss: number;
  consoleRss: number;
  load: number;
};
type Stage = { name: string; seconds: number; peaks: Peaks; note: string; finished: boolean };

/** A stage that failed or ran past BENCH_DEADLINE_MINUTES: the table says how far it got. */
class StageStopped extends Error {}

/** What the page's progress bars say, for a stage stopped before its end. */
async function progressShown(page: Page): Promise<string> {
  const bars = await page
    .getByRole("progressbar")
    .evaluateAll((elements) =>
      elements.map(
        (element) =>
          `${element.getAttribute("aria-label") ?? ""} ${element.getAttribute("aria-valuenow")} of ${element.getAttribute("aria-valuemax")}`,
      ),
    )
    .catch(() => []);
  return bars.join("; ");
}

const mb = (bytes: number | null) =>
  bytes === null ? "–" : Math.round(bytes / 2 ** 20).toLocaleString("en");
const fixed = (value: number, digits = 1) =>
  value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export async function benchMigrationFromExport(): Promise<string> {
  if (!isBuilt()) throw new Error("migration-from-export needs a build: run `npx next build`.");
  const size: SlackExportSize = {
    ...benchSlackExport,
    people: Number(process.env.BENCH_EXPORT_PEOPLE ?? benchSlackExport.people),
    channels: Number(process.env.BENCH_EXPORT_CHANNELS ?? benchSlackExport.channels),
    messages: Number(process.env.BENCH_EXPORT_MESSAGES ?? benchSlackExport.messages),
  };
  const generated = exportFile(size);
  // BENCH_CPU_PROF=<dir>: the console's CPU profile, written there when it stops.
  const profile = process.env.BENCH_CPU_PROF;
  const server = await startConsoleServer(
    { ADMIN_PASSWORD: PASSWORD },
    { nodeArgs: profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [] },
  );
  const consolePid = server.pid()!;
  const browser = await chromium.launch(chromiumLaunch);
  const sampler = new Sampler(consolePid);
  const started = Date.now();
  try {
    const context = await browser.newContext({ baseURL: server.origin });
    const page = await context.newPage();
    page.setDefaultTimeout(STAGE_TIMEOUT);
    await signIn(page);
    await sampler.start(page);
    const minutes = process.env.BENCH_DEADLINE_MINUTES;
    const deadline = minutes ? started + Number(minutes) * 60_000 : null;
    const stages = await migrate(page, generated.path, sampler, deadline);
    const hwm = processStatus(consolePid).hwm;
    return table(size, generated, stages, hwm);
  } finally {
    sampler.stop();
    await browser.close();
    await server.stop();
  }
}

type Generated = { path: string; seconds: number | null; bytes: number };

function exportFile(size: SlackExportSize): Generated {
  const shape =
    size.people === benchSlackExport.people && size.channels === benchSlackExport.channels
      ? ""
      : `-${size.people}p-${size.channels}c`;
  const file = path.join(os.tmpdir(), `switchboard-bench-slack-${size.messages}${shape}.zip`);
  let seconds: number | null = null;
  if (!fs.existsSync(file) || process.env.BENCH_REGENERATE) {
    const started = performance.now();
    writeSlackExport(`${file}.part`, size);
    fs.renameSync(`${file}.part`, file);
    seconds = (performance.now() - started) / 1000;
  }
  return { path: file, seconds, bytes: fs.statSync(file).size };
}

async function signIn(page: Page) {
  await page.goto("/sign-in");
  await page.getByLabel("Administrator password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}

/** Waits for `done`, failing at once with the page's words if `failed` shows instead. */
async function either(done: Locator, failed: Locator, what: string) {
  await done.or(failed).first().waitFor();
  if (await failed.first().isVisible())
    throw new Error(`${what}: ${(await failed.first().innerText()).trim()}`);
}

async function migrate(
  page: Page,
  zip: string,
  sampler: Sampler,
  deadline: number | null,
): Promise<Stage[]> {
  const stages: Stage[] = [];
  try {
    await migrateStages(page, zip, sampler, deadline, stages);
  } catch (error) {
    if (!(error instanceof StageStopped)) throw error;
  }
  return stages;
}

async function migrateStages(
  page: Page,
  zip: string,
  sampler: Sampler,
  deadline: number | null,
  stages: Stage[],
) {
  const stage = async (name: string, work: () => Promise<string | void>) => {
    sampler.begin();
    const started = performance.now();
    if (deadline !== null) page.setDefaultTimeout(Math.max(1000, deadline - Date.now()));
    let note: string;
    try {
      note = (await work()) ?? "";
    } catch (error) {
      const seconds = (performance.now() - started) / 1000;
      const reason = error instanceof Error ? error.message.split("\n")[0]! : String(error);
      const shown = await progressShown(page);
      note = `**not finished**: ${reason}${shown ? ` (${shown})` : ""}`;
      stages.push({ name, seconds, peaks: sampler.end(), note, finished: false });
      console.log(`${name}: ${fixed(seconds)} s ${note}`);
      throw new StageStopped();
    }
    const seconds = (performance.now() - started) / 1000;
    stages.push({ name, seconds, peaks: sampler.end(), note, finished: true });
    console.log(`${name}: ${fixed(seconds)} s ${note}`);
  };
  const alert = page.getByRole("alert").filter({ hasText: "That did not work" });

  await page.goto("/imports/export");
  await page.locator('[data-testid="export-flow"][data-hydrated="true"]').waitFor();
  await stage("Drop → summary (the worker reads the export)", async () => {
    await page.getByLabel("Export to import").setInputFiles(zip);
    await either(page.getByTestId("community-summary"), alert, "Reading the export");
    return (await page.getByTestId("community-summary").innerText()).split("\n")[0];
  });
  await stage("Forecast", async () => {
    await page
      .getByRole("form", { name: "Choices" })
      .getByRole("button", { name: "Show the forecast" })
      .click();
    await either(page.getByTestId("export-forecast"), alert, "The forecast");
    return (await page.getByTestId("forecast-rows").innerText()).trim();
  });
  const jobs: Record<string, string> = {};
  await stage("Create the imports (read again, rows sent)", async () => {
    await page.getByRole("button", { name: "Create the imports" }).click();
    const made = page.getByRole("region", { name: "The imports are created" });
    await either(made, alert, "Creating the imports");
    for (const name of ["Users import", "Group channels import", "Messages import"])
      jobs[name] = (await made.getByRole("link", { name }).getAttribute("href")) ?? "";
  });
  await stage("Plans (all three, in the background)", async () => {
    for (const url of Object.values(jobs)) {
      await page.goto(url);
      const failed = page
        .getByRole("alert")
        .filter({ hasText: "Check the platform on the Settings page" });
      await either(page.getByTestId("plan-create"), failed, `The plan of ${url}`);
    }
  });
  for (const [name, url] of Object.entries(jobs)) {
    await page.goto(url);
    await page.getByTestId("plan-create").waitFor();
    await stage(`${name}: rehearsal`, async () => {
      await page.getByRole("button", { name: "Rehearse in a scratch application" }).click();
      const stopped = page.getByRole("alert").filter({ hasText: "The rehearsal stopped" });
      await either(page.getByTestId("rehearsal"), stopped, `The rehearsal of ${name}`);
      return (await page.getByTestId("rehearsal").innerText()).replace(/\s+/g, " ").trim();
    });
    await stage(`${name}: Verify the rehearsal`, async () => {
      await page.getByRole("button", { name: "Verify the rehearsal" }).click();
      const verified = page.getByTestId("verification-rehearsal");
      await verified.getByRole("heading", { name: /: (Verified|Failed|Cancelled)/ }).waitFor();
      const heading = await verified.getByRole("heading").innerText();
      const counts = await verified.getByTestId("verification-counts").innerText();
      return `${heading.split(" · ")[0]}: ${counts.trim()}`;
    });
  }
}

/** What a process's /proc/PID/status says of its memory, in bytes. */
function processStatus(pid: number): { rss: number; hwm: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** User and system CPU seconds of these processes so far (/proc/PID/stat, 100 ticks a second). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks / 100;
}

/** Every process under `pid` (itself included), from /proc's parent ids. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [pid];
  for (let at = 0; at < tree.length; at++) tree.push(...(children.get(tree[at]!) ?? []));
  return tree;
}

const isRenderer = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer");
  } catch {
    return false;
  }
};

/**
 * Samples every second: the tab's JS heap (CDP), the export worker's JS heap (its
 * `performance.memory`, when the worker exists), the tab's renderer processes' RSS, and the
 * console's process tree's RSS. Peaks are kept per stage.
 */
class Sampler {
  private timer: NodeJS.Timeout | null = null;
  private stage: Peaks = Sampler.empty();
  /** The latest sample: a stage shorter than a second is given it. */
  private last: Peaks | null = null;
  constructor(private readonly consolePid: number) {}

  static empty(): Peaks {
    return {
      consoleCpu: 0,
      tabCpu: 0,
      tabHeap: 0,
      workerHeap: null,
      tabRss: 0,
      consoleRss: 0,
      load: 0,
    };
  }

  async start(page: Page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    let busy = false;
    this.timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.sample(page, cdp).finally(() => (busy = false));
    }, 1000);
  }

  private async sample(
    page: Page,
    cdp: Awaited<ReturnType<ReturnType<Page["context"]>["newCDPSession"]>>,
  ) {
    const peaks: Peaks = Sampler.empty();
    try {
      const { metrics } = await cdp.send("Performance.getMetrics");
      peaks.tabHeap = metrics.find((metric) => metric.name === "JSHeapUsedSize")?.value ?? 0;
    } catch {
      // Between two pages.
    }
    for (const worker of page.workers()) {
      const used = await worker
        .evaluate(
          () =>
            (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory
              ?.usedJSHeapSize ?? null,
        )
        .catch(() => null);
      if (used !== null) peaks.workerHeap = Math.max(peaks.workerHeap ?? 0, used);
    }
    const sum = (pids: number[]) => pids.reduce((total, pid) => total + processStatus(pid).rss, 0);
    peaks.consoleRss = sum(processTree(this.consolePid));
    peaks.tabRss = sum(processTree(process.pid).filter(isRenderer));
    peaks.load = os.loadavg()[0]!;
    this.last = peaks;
    const into = this.stage;
    into.tabHeap = Math.max(into.tabHeap, peaks.tabHeap);
    if (peaks.workerHeap !== null)
      into.workerHeap = Math.max(into.workerHeap ?? 0, peaks.workerHeap);
    into.tabRss = Math.max(into.tabRss, peaks.tabRss);
    into.consoleRss = Math.max(into.consoleRss, peaks.consoleRss);
    into.load = Math.max(into.load, peaks.load);
  }

  private cpuAtBegin = { console: 0, tab: 0 };

  private cpu() {
    return {
      console: cpuSeconds(processTree(this.consolePid)),
      tab: cpuSeconds(processTree(process.pid).filter(isRenderer)),
    };
  }

  begin() {
    this.stage = Sampler.empty();
    this.cpuAtBegin = this.cpu();
  }

  end(): Peaks {
    const now = this.cpu();
    const sampled = this.stage.load > 0 ? this.stage : (this.last ?? this.stage);
    return {
      ...sampled,
      consoleCpu: now.console - this.cpuAtBegin.console,
      tabCpu: now.tab - this.cpuAtBegin.tab,
    };
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
  }
}

function lscpu(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

function table(
  size: SlackExportSize,
  generated: Generated,
  stages: Stage[],
  consoleHwm: number,
): string {
  const total = stages.reduce((sum, stage) => sum + stage.seconds, 0);
  const peak = (key: "tabHeap" | "tabRss" | "consoleRss" | "load") =>
    Math.max(...stages.map((stage) => stage.peaks[key]));
  const workerPeak = Math.max(0, ...stages.map((stage) => stage.peaks.workerHeap ?? 0));
  const tabHeap = peak("tabHeap");
  const cpu = (key: "consoleCpu" | "tabCpu") =>
    stages.reduce((sum, stage) => sum + stage.peaks[key], 0);
  const consoleRss = peak("consoleRss");
  const mark = (ok: boolean) => (ok ? "✅" : "❌");
  const finished = stages.length === STAGES && stages.every((stage) => stage.finished);
  const row = (stage: Stage) =>
    `| ${stage.name} | ${fixed(stage.seconds)} | ${fixed(stage.peaks.consoleCpu)} | ${fixed(stage.peaks.tabCpu)} | ${mb(stage.peaks.tabHeap)} | ${mb(stage.peaks.workerHeap)} | ${mb(stage.peaks.tabRss)} | ${mb(stage.peaks.consoleRss)} | ${fixed(stage.peaks.load)} | ${stage.note.replaceAll("|", "/")} |`;
  return [
    `Migration from a Slack export, drop to verified rehearsal, in Chromium (${today()}, ${lscpu()}). Export: ${size.people.toLocaleString("en")} people, ${size.channels.toLocaleString("en")} channels, ${size.messages.toLocaleString("en")} messages (${size.replies * 100} % replies, ${size.reactions * 100} % with reactions), ${mb(generated.bytes)} MB zipped${generated.seconds === null ? " (generated earlier)" : `, generated in ${fixed(generated.seconds)} s`}. Peaks are sampled once a second; "load" is the highest 1-minute load average seen during the stage (the machine is shared, so the CPU seconds each side used say more than the wall time). The worker's heap shows "–" where Chromium gives no \`performance.memory\` in a worker; the tab's RSS (the browser's renderer processes, Chromium's spare ones included) includes the worker.`,
    "",
    "| stage | wall time (s) | console CPU (s) | tab CPU (s) | tab JS heap (MB) | worker JS heap (MB) | tab RSS (MB) | console RSS (MB) | load | what it showed |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ...stages.map(row),
    `| **drop → verified rehearsal**${finished ? "" : " (not finished)"} | **${fixed(total)}** | ${fixed(cpu("consoleCpu"))} | ${fixed(cpu("tabCpu"))} | **${mb(tabHeap)}** | **${workerPeak ? mb(workerPeak) : "–"}** | ${mb(peak("tabRss"))} | **${mb(consoleRss)}** | ${fixed(peak("load"))} | console's VmHWM ${mb(consoleHwm)} MB |`,
    "",
    `Targets: ≤ 600 s ${finished ? mark(total <= 600) : `❌ (not finished after ${fixed(total)} s)`}; tab JS heap ≤ 1 GB ${mark(tabHeap <= TAB_HEAP_LIMIT && workerPeak <= TAB_HEAP_LIMIT)}; console RSS ≤ 2 GB ${mark(consoleRss <= CONSOLE_RSS_LIMIT)}.`,
  ].join("\n");
}
