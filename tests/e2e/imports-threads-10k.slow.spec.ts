import { randomBytes } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { threadsFile, threadsNdjson } from "../fixtures/imports";
import { startConsoleServer, type ConsoleServer } from "../support/console-server";
import { THREADS_PAGE, threadsAsStored, type ListedMessage } from "../support/threads-on-platform";
import { adminPassword } from "../../playwright.config";
import { signIn } from "./support/console";
import { planAndRun, runToCompletion, upload } from "./support/migration";

/**
 * Issue 23's "Done means", in the browser: a messages NDJSON of 10,000 messages in 20 channels,
 * 2,000 of them replies to 500 roots and 3,000 reactions, through the wizard, the plan, a
 * rehearsal, the run and Verify. The import runner lives in the console's process, so this test
 * starts a console of its own (the built `.next`, its own port and data directory) and kills it
 * with SIGKILL while the run sends replies; started again on the same data, the job resumes.
 * Then the sandbox holds every message once, every reply under its root and every reaction
 * once, Verify finds nothing, and the same file imported again adds nothing.
 */

const CHANNELS = 20;
const PER_CHANNEL = { messages: 500, replies: 100, roots: 25, reactions: 150 };
const MESSAGES = CHANNELS * PER_CHANNEL.messages;
const REPLIES = CHANNELS * PER_CHANNEL.replies;
/** The longest wait for one step (the rehearsal, the run, Verify). */
const LONG = 10 * 60_000;

let server: ConsoleServer | undefined;

// A click that finds nothing fails within a minute, not at the end of the test's long time-out.
test.use({ actionTimeout: 60_000 });

test.afterAll(async () => {
  // Stopped even when the test failed; `stop` waits for the process to end.
  await server?.stop();
});

test("10,000 messages with threads and reactions survive a kill -9 in the replies stage", async ({
  browser,
}) => {
  // Minutes on a quiet machine; several times that on two cores shared with other builds.
  test.setTimeout(40 * 60_000);
  const started = Date.now();
  const token = `tenk_${randomBytes(12).toString("hex")}`;
  server = await startConsoleServer({ ADMIN_PASSWORD: adminPassword, SANDBOX_API_TOKEN: token });
  const context = await browser.newContext({ baseURL: server.origin });
  try {
    const page = await context.newPage();
    const api = sandboxApi(context.request, `${server.origin}/sandbox/local/v3`, token);
    await signIn(page);
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

    // The target: four users, members of twenty group channels.
    const prefix = `tenk${Date.now().toString(36)}`;
    const senders = Array.from({ length: 4 }, (_, n) => `${prefix}_u${n}`);
    for (const id of senders)
      await api.post("/users", { user_id: id, nickname: id, profile_url: "" });
    const urls = Array.from({ length: CHANNELS }, (_, n) => `${prefix}_c${n}`);
    for (const url of urls)
      await api.post("/group_channels", { channel_url: url, user_ids: senders });
    const file = threadsFile(urls, senders, PER_CHANNEL, { prefix });
    expect(file.rows).toHaveLength(MESSAGES);
    expect(file.roots.size).toBe(REPLIES);
    expect(file.reactionCount).toBe(3000);
    const ndjson = threadsNdjson(file);

    // Wizard, plan and rehearsal.
    await uploadThreads(page, ndjson);
    await planAndRun(page, { timeout: LONG });
    const jobUrl = page.url();
    await expect(page.getByTestId("plan-create")).toHaveText("10,000", { timeout: LONG });
    await expect(page.getByTestId("thread-plan")).toContainText(
      "2,000 replies to 500 roots sent as replies at their original time, and 3,000 reactions on",
    );
    const planned = Date.now();
    await page.getByRole("button", { name: "Rehearse in a scratch application" }).click();
    await expect(page.getByTestId("rehearsal")).toContainText(
      "10,000 created, 0 existed, 0 would fail",
      { timeout: LONG },
    );
    await expect(page.getByTestId("rehearsal-threads")).toHaveText(
      "Then the replies and reactions: 2,000 replies sent to their roots, 3,000 reactions added.",
    );
    const rehearsed = Date.now();

    // The run, killed (SIGKILL) once the page says a quarter to three quarters of the replies
    // are sent: the replies stage is mid-way, with requests in flight.
    await page.getByRole("button", { name: "Run import" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Run import" }).click();
    await expect(page.getByTestId("threads-done")).toHaveText(
      /^(5\d\d|[6-9]\d\d|1,[0-4]\d\d) of 2,000 replies sent/,
      { timeout: LONG },
    );
    const before = await page.getByTestId("threads-done").innerText();
    await server.restart({ kill: true });
    const killed = Date.now();

    await page.goto(jobUrl);
    await expect(page.getByText("Completed", { exact: true })).toBeVisible({ timeout: LONG });
    const ran = Date.now();
    await expect(page.getByTestId("report-counts")).toHaveText(
      "10,000 created · 0 existed · 0 failed · 0 invalid · 0 excluded",
    );
    await expect(page.getByTestId("threads-done")).toHaveText(
      "2,000 of 2,000 replies sent, 3,000 of 3,000 reactions added",
    );

    // On the sandbox: nothing lost, nothing twice, each reply under its root.
    const stored = await threadsAsStored(api.listPage, file, urls);
    expect(stored.problems.slice(0, 10)).toEqual([]);
    expect(stored).toMatchObject({ messages: MESSAGES, replies: REPLIES, reactions: 3000 });
    for (const url of urls) expect(await api.totalCount(url)).toBe(PER_CHANNEL.messages);

    // Verify reads every message back: nothing missing, extra or different.
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    const run = page.getByTestId("verification-run");
    await expect(run.getByRole("heading")).toContainText("Verify of the run: Verified", {
      timeout: LONG,
    });
    await expect(run.getByTestId("verification-counts")).toHaveText(
      "10,000 matched · 0 missing · 0 extra · 0 different",
    );
    const verified = Date.now();

    // The same file again: every message, reply and reaction is there; nothing is added.
    await uploadThreads(page, ndjson);
    await planAndRun(page, { timeout: LONG });
    await expect(page.getByTestId("plan-create")).toHaveText("0", { timeout: LONG });
    await expect(page.getByTestId("plan-existing")).toHaveText("10,000");
    await runToCompletion(page, { timeout: LONG });
    await expect(page.getByTestId("report-counts")).toHaveText(
      "0 created · 10,000 existed · 0 failed · 0 invalid · 0 excluded",
    );
    expect(await threadsAsStored(api.listPage, file, urls)).toEqual(stored);
    for (const url of urls) expect(await api.totalCount(url)).toBe(PER_CHANNEL.messages);

    const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(1);
    console.log(
      `killed at "${before}"; console, wizard and plan ${seconds(started, planned)} s, ` +
        `rehearsal ${seconds(planned, rehearsed)} s, ` +
        `run ${seconds(rehearsed, ran)} s (restart and resume ${seconds(killed, ran)} s), ` +
        `checks and Verify ${seconds(ran, verified)} s, second import ${seconds(verified, Date.now())} s, ` +
        `in all ${seconds(started, Date.now())} s`,
    );
  } finally {
    await context.close();
  }
});

async function uploadThreads(page: Page, ndjson: string) {
  await upload(page, /Messages/, "threads.ndjson", ndjson, MESSAGES);
  // Every row is valid; the replies to a reply (one a channel) are only warned about.
  await expect(page.getByTestId("count-valid")).toHaveText("10,000", { timeout: 60_000 });
}

/** The sandbox's HTTP API with the console's token: the test's side door. */
function sandboxApi(request: APIRequestContext, base: string, token: string) {
  const headers = { "Api-Token": token };
  return {
    post: async (path: string, data: Record<string, unknown>) => {
      const response = await request.post(`${base}${path}`, { headers, data });
      expect(response.status(), await response.text()).toBe(200);
    },
    totalCount: async (url: string) => {
      const response = await request.get(`${base}/group_channels/${url}/messages/total_count`, {
        headers,
      });
      return ((await response.json()) as { total: number }).total;
    },
    listPage: async (url: string, messageTs: number, include: boolean) => {
      const query = new URLSearchParams({
        message_ts: String(messageTs),
        include: String(include),
        prev_limit: "0",
        next_limit: String(THREADS_PAGE),
        include_reply_type: "all",
        include_reactions: "true",
      });
      const response = await request.get(`${base}/group_channels/${url}/messages?${query}`, {
        headers,
      });
      expect(response.status()).toBe(200);
      return ((await response.json()) as { messages: ListedMessage[] }).messages;
    },
  };
}
