import { expect, test, type APIRequestContext, type Page } from "./support/test";
import { csv, usersCsv, type UserFixture } from "../fixtures/imports";
import { finishMigration, openImportWizard, previewRow, revealApiToken } from "./support/console";
import {
  migrateHistoryOfPeopleWhoLeft,
  planAndRun,
  platformApi,
  runToCompletion,
  upload,
  type PlatformApi,
} from "./support/migration";

/**
 * A whole migration as an administrator runs it: users first (with mistakes, one fixed in the
 * preview, one already on the platform, one inactive), then group channels whose members are
 * those users (one frozen, one fixed in the preview), checked against the platform's API.
 */

async function fixCell(page: Page, row: number, column: string, value: string) {
  await page.getByRole("button", { name: new RegExp(`^Edit row ${row}, ${column}:`) }).click();
  await page.getByLabel(`Row ${row}, ${column}`).fill(value);
  await page.getByLabel(`Row ${row}, ${column}`).press("Enter");
}

/** The embedded sandbox's default application, through the console's own port. */
async function platform(page: Page, request: APIRequestContext): Promise<PlatformApi> {
  await page.goto("/settings");
  const token = await revealApiToken(page, "local");
  return platformApi(request, `${new URL(page.url()).origin}/sandbox/local/v3`, token);
}

test("users then group channels: previewed, fixed, planned, run, and exactly on the platform", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const p = `mig${Date.now().toString(36)}`;
  const api = await platform(page, request);
  const origin = new URL(page.url()).origin;
  await request.post(`${origin}/sandbox/local/v3/users`, {
    headers: { "Api-Token": api.token },
    data: { user_id: `${p}-2`, nickname: "Before", profile_url: "" },
  });

  // 1. Users: four valid (one inactive, one already on the platform), three with mistakes, one fixed.
  const users: UserFixture[] = [
    { id: `${p}-1`, name: "Ada", team: "red", active: "yes" },
    { id: `${p}-2`, name: "Grace", team: "blue", active: "yes" },
    { id: `${p}-3`, name: "Linus", team: "red", active: "yes" },
    { id: `${p}-4`, name: "Edsger", team: "blue", active: "no" },
    { id: "x".repeat(81), name: "Too long" },
    { id: `${p}-5`, name: "" },
    { id: `${p}-6`, name: "Maybe", active: "maybe" },
  ];
  await upload(page, /Users/, "people.csv", usersCsv(users), 7);
  await expect(previewRow(page, 6)).toContainText("at most 80 are allowed");
  await expect(previewRow(page, 7)).toContainText("Nickname is required.");
  await expect(previewRow(page, 8)).toContainText('not "maybe"');
  await fixCell(page, 7, "Name", "Barbara");
  await expect(page.getByTestId("count-valid")).toHaveText("5");
  await planAndRun(page);
  await expect(page.getByTestId("plan-create")).toHaveText("4");
  await expect(page.getByTestId("plan-existing")).toHaveText("1");
  await expect(page.getByTestId("plan-invalid")).toHaveText("2");
  await expect(
    page.getByText("last stage (Finish the migration, after the messages): 1 deactivation"),
  ).toBeVisible();
  await runToCompletion(page);
  await expect(page.getByTestId("report-counts")).toContainText(
    "4 created · 1 existed · 0 failed · 2 invalid · 0 excluded",
  );

  for (const id of [1, 3, 4, 5])
    expect((await api.get(`/users/${p}-${id}`)).status, `${p}-${id}`).toBe(200);
  expect((await api.get(`/users/${p}-5`)).body).toMatchObject({ nickname: "Barbara" });
  // Created active: the deactivation waits for the migration's last stage.
  expect((await api.get(`/users/${p}-4`)).body).toMatchObject({ is_active: true });
  expect((await api.get(`/users/${p}-1`)).body).toMatchObject({
    is_active: true,
    metadata: { team: "red" },
  });
  expect((await api.get(`/users/${p}-2`)).body).toMatchObject({ nickname: "Before" });
  expect((await api.get(`/users/${p}-6`)).status).toBe(400);

  // 2. Group channels whose members are those users: one frozen, one with a URL fixed in the preview.
  const channels = csv([
    ["channel_url", "name", "members", "operators", "frozen"],
    [`${p}-general`, "General", `${p}-1;${p}-3;${p}-4`, `${p}-1`, ""],
    [`${p}-archive`, "Archive", `${p}-1|${p}-5`, "", "yes"],
    ["bad url!", "Fixed", `${p}-3`, "", "no"],
  ]);
  await upload(page, /Group channels/, "channels.csv", channels, 3);
  await expect(previewRow(page, 4)).toContainText(
    "Channel URL may contain only letters, digits, underscore and hyphen.",
  );
  await fixCell(page, 4, "channel_url", `${p}-fixed`);
  await expect(page.getByTestId("count-valid")).toHaveText("3");
  await planAndRun(page);
  await expect(page.getByTestId("plan-create")).toHaveText("3");
  await expect(
    page.getByText("last stage (Finish the migration, after the messages): 1 freeze"),
  ).toBeVisible();
  await runToCompletion(page);
  await expect(page.getByTestId("report-counts")).toContainText(
    "3 created · 0 existed · 0 failed · 0 invalid · 0 excluded",
  );

  const general = (await api.get(`/group_channels/${p}-general`)).body as {
    members: Array<{ user_id: string; role: string; is_active: boolean }>;
    freeze: boolean;
  };
  expect(general.members.map((member) => member.user_id).sort()).toEqual([
    `${p}-1`,
    `${p}-3`,
    `${p}-4`,
  ]);
  expect(general.members.find((member) => member.user_id === `${p}-1`)?.role).toBe("operator");
  expect(general.members.find((member) => member.user_id === `${p}-4`)?.is_active).toBe(true);
  expect(general.freeze).toBe(false);
  expect((await api.get(`/group_channels/${p}-archive`)).body).toMatchObject({
    freeze: false,
    member_count: 2,
  });
  expect((await api.get(`/group_channels/${p}-fixed`)).body).toMatchObject({
    name: "Fixed",
    freeze: false,
  });

  // 3. The last stage: the deactivation and the freeze, once nothing else is in progress.
  await finishMigration(page);
  expect((await api.get(`/users/${p}-4`)).body).toMatchObject({ is_active: false });
  expect((await api.get(`/group_channels/${p}-archive`)).body).toMatchObject({
    freeze: true,
    member_count: 2,
  });
  // Deactivated without leaving: the channel keeps its member, shown inactive.
  const after = (await api.get(`/group_channels/${p}-general`)).body as typeof general;
  expect(after.members.find((member) => member.user_id === `${p}-4`)?.is_active).toBe(false);
  expect(after.members).toHaveLength(3);
});

test("messages after users and channels: bad rows kept back, each channel's history in order, a second run adds nothing", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const p = `msg${Date.now().toString(36)}`;
  const api = await platform(page, request);

  await upload(
    page,
    /Users/,
    "people.csv",
    usersCsv([
      { id: `${p}-ann`, name: "Ann" },
      { id: `${p}-bob`, name: "Bob" },
    ]),
    2,
  );
  await planAndRun(page);
  await runToCompletion(page);

  // One channel named by its URL, one by the old system's id (a valid URL: the import keeps it).
  const channels = csv([
    ["channel_url", "source_id", "name", "members"],
    [`${p}-sales`, "", "Sales", `${p}-ann;${p}-bob`],
    ["", `${p}-old-room`, "Support", `${p}-ann;${p}-bob`],
  ]);
  await upload(page, /Group channels/, "channels.csv", channels, 2);
  await planAndRun(page);
  await runToCompletion(page);
  // A job that exists opens by its address (one that does not is a 404: tests/console).
  expect((await page.reload())?.status()).toBe(200);
  await page.goto("/imports/migration");
  // As it reads on the screen (innerText, after CSS), in sentence case like the rest of the console.
  await expect(page.getByTestId("stage-channels")).toContainText(/^Done/, { useInnerText: true });
  await expect(page.getByTestId("stage-messages")).toContainText(/^Not started/, {
    useInnerText: true,
  });

  const line = (fields: Record<string, unknown>) => JSON.stringify(fields);
  const ndjson = [
    line({ channel: `${p}-sales`, type: "admin", text: "Imported", ts: "2024-03-01T09:00:00Z" }),
    line({
      channel: `${p}-sales`,
      type: "file",
      from: `${p}-bob`,
      url: "https://files.example/q1.pdf",
      ts: 1709283720,
      id: "m2",
    }),
    line({
      channel: `${p}-sales`,
      type: "text",
      from: `${p}-ann`,
      text: "Morning",
      ts: 1709283660,
      id: "m1",
    }),
    line({
      channel: `${p}-old-room`,
      type: "text",
      from: `${p}-bob`,
      text: "Hello",
      ts: 1709283600000,
      id: "m3",
    }),
    line({
      channel: `${p}-old-room`,
      type: "text",
      from: `${p}-ann`,
      text: "Hi Bob",
      ts: 1709283601000,
      id: "m4",
    }),
    line({ channel: `${p}-sales`, type: "file", from: `${p}-ann`, ts: 1709283800, id: "b1" }), // FILE without url
    line({
      channel: `${p}-sales`,
      type: "poll",
      from: `${p}-ann`,
      text: "?",
      ts: 1709283801,
      id: "b2",
    }), // unknown type
    line({
      channel: `${p}-sales`,
      type: "text",
      from: `${p}-ghost`,
      text: "boo",
      ts: 1709283802,
      id: "b3",
    }), // not a user
    line({
      channel: `${p}-nowhere`,
      type: "text",
      from: `${p}-ann`,
      text: "lost",
      ts: 1709283803,
      id: "b4",
    }), // no channel
  ].join("\n");
  const uploadMessages = async () => {
    await openImportWizard(page);
    await page.getByRole("radio", { name: /Messages/ }).check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("File to import").setInputFiles({
      name: "messages.ndjson",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from(ndjson),
    });
    await page.getByRole("button", { name: "Continue to mapping" }).click();
  };
  await uploadMessages();
  await expect(page.getByTestId("timestamp-unit")).toContainText("Read as");
  await page.getByRole("button", { name: "Validate 9 rows" }).click();
  await expect(previewRow(page, 6)).toContainText("File URL is required.");
  await expect(previewRow(page, 7)).toContainText("must be MESG, FILE or ADMM");
  // What the rows name is looked up before any upload: a sender who is no user, a channel
  // that exists nowhere, each beside its cell.
  await expect(previewRow(page, 8)).toContainText(`No user "${p}-ghost"`, { timeout: 20_000 });
  await expect(previewRow(page, 9)).toContainText(`No channel "${p}-nowhere"`);
  await expect(page.getByTestId("count-valid")).toHaveText("5");
  await planAndRun(page);
  await expect(page.getByTestId("plan-create")).toHaveText("5");
  await expect(page.getByTestId("plan-invalid")).toHaveText("4");
  await expect(page.getByTestId("message-plan")).toContainText("2 channels, 2 migration requests");
  await runToCompletion(page);
  await expect(page.getByTestId("report-counts")).toContainText(
    "5 created · 0 existed · 0 failed · 4 invalid",
  );

  type Listed = {
    messages: Array<{ type: string; message: string; created_at: number; file?: { url: string } }>;
  };
  const history = async (channelUrl: string) =>
    (
      (
        await api.get(
          `/group_channels/${channelUrl}/messages?message_ts=0&prev_limit=0&next_limit=200`,
        )
      ).body as Listed
    ).messages;
  const sales = await history(`${p}-sales`);
  expect(sales.map((message) => message.type)).toEqual(["ADMM", "MESG", "FILE"]);
  expect(sales.map((message) => message.created_at)).toEqual([
    1709283600000, 1709283660000, 1709283720000,
  ]);
  expect(sales[2]!.file?.url).toBe("https://files.example/q1.pdf");
  const listed = (await api.get(`/group_channels?limit=100`)).body as {
    channels: Array<{ channel_url: string; name: string }>;
  };
  const support = listed.channels.find(
    // Named by the old system's id, a valid channel URL: the import keeps it as the URL.
    (channel) => channel.name === "Support" && channel.channel_url === `${p}-old-room`,
  );
  expect(support).toBeDefined();
  expect((await history(support!.channel_url)).map((message) => message.message)).toEqual([
    "Hello",
    "Hi Bob",
  ]);

  // The same file again is planned and run, and the platform holds nothing more.
  await uploadMessages();
  await page.getByRole("button", { name: "Validate 9 rows" }).click();
  // As above: planned once the look-ups of the rows' senders and channels have answered.
  await expect(page.getByTestId("count-valid")).toHaveText("5", { timeout: 20_000 });
  await planAndRun(page);
  await runToCompletion(page);
  expect(await history(`${p}-sales`)).toHaveLength(3);
  expect(await history(support!.channel_url)).toHaveLength(2);
});

test("the history of people who left: two inactive users' 20 of 40 messages arrive, and they end up deactivated", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await migrateHistoryOfPeopleWhoLeft(page, await platform(page, request));
});

test("a sender who exists nowhere, created as a deactivated user when asked: the messages arrive, and the sender ends up deactivated", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const p = `ghost${Date.now().toString(36)}`;
  const api = await platform(page, request);
  const ann = `${p}-ann`;
  const ghost = `${p}-ghost`;
  const people = [
    { id: ann, name: "Ann" },
    { id: `${p}-bea`, name: "Bea" },
  ];
  await upload(page, /Users/, "known-people.csv", usersCsv(people), 2);
  await planAndRun(page);
  await runToCompletion(page);
  const room = `${p}-room`;
  await api.groupChannel(
    room,
    people.map((person) => person.id),
  );

  // Six messages, every other one by someone on neither the platform nor a users import.
  const rows = Array.from({ length: 6 }, (_, n) => [
    room,
    n % 2 === 0 ? ann : ghost,
    `message ${n}`,
    String(1_709_283_600 + n),
    `${p}-${n}`,
  ]);
  await upload(
    page,
    /Messages/,
    "ghost-history.csv",
    csv([["channel", "from", "text", "ts", "id"], ...rows]),
    6,
  );
  await expect(page.getByTestId("reference-check")).toContainText("were checked", {
    timeout: 20_000,
  });
  await expect(page.getByTestId("count-with-errors")).toHaveText("3");
  await expect(previewRow(page, 3)).toContainText(
    `No user "${ghost}" on the platform or in a users import of this console`,
  );

  const option = page.getByRole("checkbox", {
    name: "Create unknown senders as deactivated users",
  });
  await expect(option).not.toBeChecked();
  await expect(option).toHaveAccessibleDescription(
    /^Senders that are neither on the platform nor in a users import are created as deactivated users, so their messages are kept\./,
  );
  await option.check();
  await expect(page.getByTestId("count-with-errors")).toHaveText("0");
  await expect(page.getByTestId("count-valid")).toHaveText("6");
  await expect(page.getByTestId("count-with-warnings")).toHaveText("3");
  await page.getByRole("button", { name: /^With warnings/ }).click();
  await expect(previewRow(page, 3)).toContainText(
    `No user "${ghost}" on the platform or in a users import of this console: created as a deactivated user`,
  );

  // The choice is part of the draft: a reload brings it back, and the rows with it.
  await expect(page.getByTestId("draft-status")).toHaveText("Draft saved in this browser");
  await page.reload();
  await expect(page.getByText("Your unfinished import is back")).toBeVisible({ timeout: 30_000 });
  await expect(option).toBeChecked();
  await expect(page.getByTestId("reference-check")).toContainText("were checked", {
    timeout: 20_000,
  });
  await expect(page.getByTestId("count-valid")).toHaveText("6");
  await expect(page.getByTestId("count-with-warnings")).toHaveText("3");

  await planAndRun(page);
  await expect(page.getByTestId("plan-create")).toHaveText("6");
  await expect(page.getByTestId("plan-invalid")).toHaveText("0");
  await expect(page.getByTestId("plan-senders")).toHaveText(
    `1 sender on neither the platform nor a users import: created as users before the messages (nickname = their id), deactivated in the migration's last stage: ${ghost}.`,
  );
  await page.getByRole("button", { name: "Run import" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm.getByTestId("run-created-senders")).toContainText(
    "1 unknown sender created as users before the messages",
  );
  await confirm.getByRole("button", { name: "Run import" }).click();
  await expect(page.getByText("Completed", { exact: true })).toBeVisible({ timeout: 45_000 });

  const senders = await api.senders(room);
  expect(senders).toHaveLength(6);
  expect(senders.filter((id) => id === ghost)).toHaveLength(3);
  expect((await api.get(`/users/${ghost}`)).body).toMatchObject({
    nickname: ghost,
    is_active: true,
  });

  await finishMigration(page);
  expect((await api.get(`/users/${ghost}`)).body).toMatchObject({ is_active: false });
  expect((await api.get(`/users/${ann}`)).body).toMatchObject({ is_active: true });
  expect(await api.senders(room)).toHaveLength(6);
});
