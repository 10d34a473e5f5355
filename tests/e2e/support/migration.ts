import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { csv, usersCsv } from "../../fixtures/imports";
import { finishMigration, openImportWizard } from "./console";

/** A migration's steps as the browser tests drive them, on whichever target is chosen. */

/** Opens the import wizard, chooses what to import and gives it the file. */
export async function pickFile(
  page: Page,
  resource: RegExp,
  name: string,
  content: string,
  mimeType = "text/csv",
) {
  await openImportWizard(page);
  await page.getByRole("radio", { name: resource }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page
    .getByLabel("File to import")
    .setInputFiles({ name, mimeType, buffer: Buffer.from(content) });
}

/** Picks the file, maps it as suggested and validates its `rows`. */
export async function upload(
  page: Page,
  resource: RegExp,
  name: string,
  content: string,
  rows: number,
) {
  await pickFile(page, resource, name, content);
  await page.getByRole("button", { name: "Continue to mapping" }).click();
  await page.getByRole("button", { name: `Validate ${rows.toLocaleString("en-US")} rows` }).click();
}

/** Uploads the previewed rows and waits for the job's page; `timeout` for large files. */
export async function planAndRun(page: Page, { timeout = 20_000 } = {}) {
  await page.getByRole("button", { name: "Continue to plan" }).click();
  await expect(page).toHaveURL(/\/imports\/[0-9a-f-]{36}$/, { timeout });
}

export async function runToCompletion(page: Page, { timeout = 45_000 } = {}) {
  await page.getByRole("button", { name: "Run import" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Run import" }).click();
  await expect(page.getByText("Completed", { exact: true })).toBeVisible({ timeout });
}

export type PlatformApi = {
  token: string;
  get: (path: string) => Promise<{ status: number; body: Record<string, unknown> }>;
  /** Makes a group channel of these users through the platform's API, as if it existed before. */
  groupChannel: (channelUrl: string, userIds: string[]) => Promise<void>;
  /** The sender of each message of a group channel, oldest first. */
  senders: (channelUrl: string) => Promise<string[]>;
};

/** The platform's API at `base` (its `/v3`), with `token`: the test's side door. */
export function platformApi(request: APIRequestContext, base: string, token: string): PlatformApi {
  const get: PlatformApi["get"] = async (path) => {
    const response = await request.get(`${base}${path}`, { headers: { "Api-Token": token } });
    return {
      status: response.status(),
      body: (await response.json()) as Record<string, unknown>,
    };
  };
  return {
    token,
    get,
    groupChannel: async (channelUrl, userIds) => {
      const response = await request.post(`${base}/group_channels`, {
        headers: { "Api-Token": token },
        data: { channel_url: channelUrl, name: "Room", user_ids: userIds },
      });
      expect(response.status()).toBe(200);
    },
    senders: async (channelUrl) => {
      const listed = await get(
        `/group_channels/${channelUrl}/messages?message_ts=0&prev_limit=0&next_limit=200`,
      );
      const messages = listed.body.messages as Array<{ user: { user_id: string } }>;
      return messages.map((message) => message.user.user_id);
    },
  };
}

/**
 * Issue 25's first finding, end to end on the chosen target: users of whom two have left
 * (inactive), then 40 messages, half of them theirs, and one row left out. All 40 arrive, the
 * overview says what was left out, and the two end up deactivated by the migration's last stage.
 */
export async function migrateHistoryOfPeopleWhoLeft(page: Page, api: PlatformApi) {
  const p = `left${Date.now().toString(36)}`;
  const people = [
    { id: `${p}-ann`, name: "Ann", active: "yes" },
    { id: `${p}-bob`, name: "Bob", active: "no" },
    { id: `${p}-cy`, name: "Cy", active: "yes" },
    { id: `${p}-dee`, name: "Dee", active: "no" },
  ];
  await upload(page, /Users/, "people-who-left.csv", usersCsv(people), 4);
  await planAndRun(page);
  await expect(page.getByTestId("plan-create")).toHaveText("4");
  await expect(
    page.getByText("last stage (Finish the migration, after the messages): 2 deactivations"),
  ).toBeVisible();
  await runToCompletion(page);
  const room = `${p}-room`;
  await api.groupChannel(
    room,
    people.map((person) => person.id),
  );

  // 40 messages, every other one by Bob or Dee, and one row of an unknown type (left out).
  const rows = Array.from({ length: 40 }, (_, n) => [
    room,
    "text",
    people[n % 4]!.id,
    `message ${n}`,
    String(1_709_283_600 + n),
    `${p}-${n}`,
  ]);
  rows.push([room, "poll", people[0]!.id, "?", "1709283700", `${p}-poll`]);
  await upload(
    page,
    /Messages/,
    "history.csv",
    csv([["channel", "type", "from", "text", "ts", "id"], ...rows]),
    41,
  );
  await planAndRun(page);
  await expect(page.getByTestId("plan-create")).toHaveText("40");
  await runToCompletion(page);

  // The overview names the row left out beside created and failed, and offers the last stage.
  await page.goto("/imports/migration");
  await expect(page.getByTestId("stage-messages")).toContainText(
    // Earlier tests' second runs found their messages sent already: "existed" when they did.
    /^Done · \d[\d,]* created, (\d[\d,]* existed, )?0 failed, [1-9][\d,]* left out/,
    { useInnerText: true },
  );
  await expect(page.getByTestId("stage-messages")).toContainText("40 done, 1 left out");
  await expect(page.getByTestId("stage-finish")).toContainText("deactivation");

  const senders = await api.senders(room);
  expect(senders).toHaveLength(40);
  const left = [`${p}-bob`, `${p}-dee`];
  expect(senders.filter((id) => left.includes(id))).toHaveLength(20);
  for (const id of left)
    expect((await api.get(`/users/${id}`)).body).toMatchObject({ is_active: true });

  await finishMigration(page);
  for (const id of left)
    expect((await api.get(`/users/${id}`)).body).toMatchObject({ is_active: false });
  for (const id of [`${p}-ann`, `${p}-cy`])
    expect((await api.get(`/users/${id}`)).body).toMatchObject({ is_active: true });
  expect(await api.senders(room)).toHaveLength(40);
}
