import { expect, test, type Page } from "./support/test";
import { topLevelKeys } from "@/lib/schemas/webhook-payloads";
import { webhookCategories } from "@/lib/schemas/webhooks";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { gotoHydrated, revealApiToken } from "./support/console";

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

let receiver: Receiver;
let token: string;

// Each test sets the sandbox's webhook settings it needs (beforeEach) and reads only what it
// sent, so both workers share this file's tests. It is last in name order: run by one worker it
// left the other idle for its last 40 s or so.
test.describe.configure({ mode: "parallel" });

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

test.afterAll(async () => {
  await receiver.stop();
});

/** The sandbox's own API, as any client of the platform would call it. */
async function sandboxSettings(page: Page, body?: Record<string, unknown>) {
  token ??= await (async () => {
    await page.goto("/settings");
    return revealApiToken(page, "local");
  })();
  // Relative to baseURL: the page may not have loaded anything yet.
  const url = "/sandbox/local/v1/applications/local/settings/webhook";
  const headers = { "Api-Token": token };
  if (body) {
    const answer = await page.request.put(url, {
      headers,
      data: { application_id: "local", ...body },
    });
    expect(answer.status()).toBe(200);
  }
  const answer = await page.request.get(url, { headers });
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { webhook: Record<string, unknown> }).webhook;
}

/** Opens the page and waits until React has hydrated it, so the first click reaches React and not bare HTML. */
async function openWebhooks(page: Page) {
  await gotoHydrated(page, "/webhooks", 'form[aria-label="Webhook settings"]');
}

const category = (page: Page, name: string) => page.getByRole("checkbox", { name, exact: true });

/** Filters the delivery log by a call or room id, as the form's "Apply filters" does. */
async function filterLogBy(page: Page, callOrRoomId: string) {
  const filters = page.getByRole("form", { name: "Delivery filters" });
  await filters.getByLabel("call_id or room_id").fill(callOrRoomId);
  await filters.getByRole("button", { name: "Apply filters" }).click();
}

async function reviewAndConfirm(page: Page) {
  await page.getByRole("button", { name: "Review and save" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toBeVisible();
  return dialog;
}

test.beforeEach(async ({ page }) => {
  receiver.received.length = 0;
  await sandboxSettings(page, {
    enabled: false,
    url: "",
    include_members: false,
    enabled_events: [],
  });
});

test("enable webhooks with three categories, play a direct call: the receiver gets exactly those, and the log shows them", async ({
  page,
}) => {
  await openWebhooks(page);
  await page.getByRole("switch", { name: "Enabled" }).click();
  await page.getByLabel("Endpoint URL").fill(receiver.url);
  const chosen = ["direct_call:dial", "direct_call:end", "room:create"];
  for (const name of chosen) await category(page, name).click();

  const dialog = await reviewAndConfirm(page);
  await expect(dialog).toContainText("off → on");
  await expect(dialog).toContainText(receiver.url);
  const added = dialog.getByRole("definition").filter({ hasText: "direct_call:dial" });
  for (const name of chosen) await expect(added).toContainText(name);
  await dialog.getByRole("button", { name: "Confirm and save" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("webhook-save-answer")).toContainText('"enabled": true');

  expect(await sandboxSettings(page)).toEqual({
    enabled: true,
    url: receiver.url,
    include_members: false,
    enabled_events: chosen,
  });

  await openWebhooks(page);
  await page.getByRole("button", { name: "Play a direct call" }).click();
  await expect(page.getByText("3 events played; 2 accepted for delivery")).toBeVisible();
  // "2 accepted for delivery": the accept event, not subscribed, never went into the outbox,
  // from which alone webhooks are sent.
  const received = await receiver.waitFor(2);
  expect(received.map((hook) => hook.body.category)).toEqual([
    "direct_call:dial",
    "direct_call:end",
  ]);
  for (const hook of received) {
    expect(hook.headers["content-type"]).toBe("application/json");
    // Exactly section 6's keys, in its order.
    expect(Object.keys(hook.body)).toEqual(
      topLevelKeys(hook.body.category as (typeof webhookCategories)[number]),
    );
    expect(hook.body.application_id).toBe("local");
  }

  // This call's deliveries only: the console's log also holds the calls other tests played.
  const callId = (received[0]!.body.direct_call as { call_id: string }).call_id;
  await filterLogBy(page, callId);
  const log = page.getByRole("list", { name: "Deliveries" });
  await expect(log.getByRole("listitem")).toHaveCount(2);
  const dial = log.getByRole("listitem", { name: "Delivery of direct_call:dial" });
  await expect(dial).toContainText("Delivered (2xx)");
  await expect(log.getByRole("listitem", { name: "Delivery of direct_call:end" })).toContainText(
    "HTTP 200",
  );
  await dial.getByRole("button", { expanded: false }).click();
  await expect(dial.getByRole("table")).toContainText("HTTP 200");
  await expect(dial).toContainText(`"call_id": "${callId}"`);

  // Send again: a new delivery of the same payload.
  await dial.getByRole("button", { name: /Send again/ }).click();
  await receiver.waitFor(3);
  expect(receiver.received[2]!.body).toEqual(received[0]!.body);
});

test("All events sends * and the page then shows the 13 concrete categories the platform answered", async ({
  page,
}) => {
  await openWebhooks(page);
  await page.getByRole("radio", { name: "All events" }).check();
  const dialog = await reviewAndConfirm(page);
  await expect(dialog).toContainText("All events (*)");
  await dialog.getByRole("button", { name: "Confirm and save" }).click();
  await expect(dialog).toBeHidden();

  await expect(page.getByRole("radio", { name: "Selected categories" })).toBeChecked();
  for (const name of webhookCategories) await expect(category(page, name)).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Select all categories" })).toBeChecked();
  expect((await sandboxSettings(page)).enabled_events).toEqual([...webhookCategories]);
});

test("an empty selection warns, before saving, that nothing will be delivered", async ({
  page,
}) => {
  await sandboxSettings(page, {
    enabled: true,
    url: receiver.url,
    enabled_events: ["room:create", "room:delete"],
  });
  await openWebhooks(page);
  const groupAll = page.getByRole("checkbox", { name: "Select all Group calls" });
  await expect(groupAll).toHaveAttribute("aria-checked", "mixed");
  await groupAll.click();
  await expect(groupAll).toBeChecked();
  await groupAll.click();
  await expect(groupAll).not.toBeChecked();
  await expect(
    page.getByText("No category is selected: once saved, nothing will be delivered."),
  ).toBeVisible();

  const dialog = await reviewAndConfirm(page);
  await expect(dialog).toContainText("No category is subscribed: nothing will be delivered.");
  await expect(dialog).toContainText("room:create");
  await dialog.getByRole("button", { name: "Confirm and save" }).click();
  await expect(dialog).toBeHidden();
  expect((await sandboxSettings(page)).enabled_events).toEqual([]);
});

test("a test event with edited ids reaches the receiver exactly as previewed, once for a double click", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await sandboxSettings(page, {
    enabled: true,
    url: receiver.url,
    enabled_events: ["room:invitation_send"],
  });
  await openWebhooks(page);
  const panel = page.getByRole("region", { name: "Test event" });
  await panel.getByLabel("Category").selectOption("room:invitation_send");
  await panel.getByLabel("invitee_id").fill("grace");
  await panel.getByLabel("room_id").fill("room-e2e");
  const preview = panel.getByTestId("test-event-preview");
  await expect(preview).toContainText('"invitee_id": "grace"');
  const expected = JSON.parse((await preview.textContent())!) as Record<string, unknown>;

  // Both clicks land before the button shows it is sending: the second must not send again.
  await panel.getByRole("button", { name: "Send test event" }).dblclick();
  await expect(
    panel.getByText("accepted the room:invitation_send event for delivery"),
  ).toBeVisible();
  const [hook] = await receiver.waitFor(1);
  expect(hook!.body).toEqual(expected);
  // A second event would follow within milliseconds (seen: 55 ms apart), long before the next
  // press below, whose event must then be the second to arrive.
  expect(receiver.received).toHaveLength(1);
  await expect(
    page.getByRole("listitem", { name: "Delivery of room:invitation_send" }).first(),
  ).toContainText("Delivered (2xx)");

  // Pressed again, a distinct event goes out, exactly as now previewed: a receiver that skips a
  // signature it has seen (as the page advises) must not drop it.
  await expect(preview).not.toHaveText(JSON.stringify(expected, null, 2));
  const next = JSON.parse((await preview.textContent())!) as Record<string, unknown>;
  expect(next.occurred_at as number).toBeGreaterThan(expected.occurred_at as number);
  await panel.getByRole("button", { name: "Send test event" }).click();
  const [, second] = await receiver.waitFor(2);
  expect(second!.body).toEqual(next);
  expect(receiver.received).toHaveLength(2);
  expect(second!.headers["x-sendbird-signature"]).not.toBe(hook!.headers["x-sendbird-signature"]);
});

test("the counts per outcome follow a delivery as it finishes, without a reload", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await sandboxSettings(page, {
    enabled: true,
    url: receiver.url,
    enabled_events: ["room:invitation_accept"],
  });
  // Answered after 2 s: the delivery is pending when the page first counts it.
  receiver.setBehaviour({ mode: "answer", status: 200, delayMs: 2_000 });
  // A room of this test's own, so that the counts are of its one event whatever ran before.
  const roomId = `counts-${Date.now()}`;
  try {
    await openWebhooks(page);
    await page
      .getByRole("form", { name: "Delivery filters" })
      .getByLabel("Category")
      .selectOption("room:invitation_accept");
    await filterLogBy(page, roomId);
    const counts = page.getByRole("status", { name: "Deliveries per outcome" });
    await expect(counts).toContainText("Pending: 0");
    const panel = page.getByRole("region", { name: "Test event" });
    await panel.getByLabel("Category").selectOption("room:invitation_accept");
    await panel.getByLabel("room_id").fill(roomId);
    await panel.getByRole("button", { name: "Send test event" }).click();
    await expect(counts).toContainText("Pending: 1");
    await expect(page.getByRole("button", { name: "Send again all 1 selected…" })).toBeVisible();
    await receiver.waitFor(1);
    await expect(counts).toContainText("Pending: 0", { timeout: 8_000 });
    await expect(counts).toContainText("Delivered (2xx): 1");
  } finally {
    receiver.setBehaviour({ mode: "answer", status: 200 });
  }
});

test("a test event id longer than the platform takes is flagged beside its field and not sent", async ({
  page,
}) => {
  await openWebhooks(page);
  const panel = page.getByRole("region", { name: "Test event" });
  const callerId = panel.getByLabel("caller_id");
  await callerId.fill("x".repeat(201));
  await expect(callerId).toHaveAccessibleDescription("At most 200 characters.");
  await expect(panel.getByRole("button", { name: "Send test event" })).toBeDisabled();
  await callerId.fill("x".repeat(200));
  await expect(panel.getByText("At most 200 characters.")).toHaveCount(0);
  await expect(panel.getByRole("button", { name: "Send test event" })).toBeEnabled();
});

test("a played call's ids and invitees beyond the sandbox's limits are flagged beside their fields", async ({
  page,
}) => {
  await openWebhooks(page);
  const direct = page.getByRole("region", { name: "Direct call" });
  const group = page.getByRole("region", { name: "Group call" });
  const callerId = direct.getByLabel("caller_id");
  await callerId.fill("x".repeat(81));
  await expect(callerId).toHaveAccessibleDescription("At most 80 characters.");
  await expect(direct.getByRole("button", { name: "Play a direct call" })).toBeDisabled();
  await callerId.fill("x".repeat(80));
  await expect(direct.getByRole("button", { name: "Play a direct call" })).toBeEnabled();

  const invitees = group.getByLabel("invitee_ids");
  await invitees.fill(Array.from({ length: 21 }, (_, i) => `guest-${i}`).join(", "));
  await expect(invitees).toHaveAccessibleDescription(/At most 20 invitees\./);
  await expect(group.getByRole("button", { name: "Play a group call" })).toBeDisabled();
  await invitees.fill(Array.from({ length: 20 }, (_, i) => `guest-${i}`).join(", "));
  await expect(group.getByRole("button", { name: "Play a group call" })).toBeEnabled();
});

test("a platform refusal is shown beside the field; plain http is warned about", async ({
  page,
}) => {
  await openWebhooks(page);
  const url = page.getByLabel("Endpoint URL");
  await url.fill("https://hooks.example.com/calls");
  await expect(page.getByText(/Plain http/)).toHaveCount(0);
  await url.fill(receiver.url);
  await expect(page.getByText(/Plain http: payloads travel unencrypted/)).toBeVisible();

  // The form refuses what the shared schema refuses, before asking.
  await url.fill("not a url");
  await page.getByRole("button", { name: "Review and save" }).click();
  await expect(
    page.getByText('"url" must be an absolute http or https URL, or empty.'),
  ).toBeVisible();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
});

test("the category checkboxes work by keyboard", async ({ page }) => {
  await openWebhooks(page);
  const dial = category(page, "direct_call:dial");
  await dial.focus();
  await page.keyboard.press("Space");
  await expect(dial).toBeChecked();
  await page.keyboard.press("Tab");
  await expect(category(page, "direct_call:accept")).toBeFocused();
  await page.keyboard.press("Space");
  await expect(category(page, "direct_call:accept")).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Select all Direct calls" })).toHaveAttribute(
    "aria-checked",
    "mixed",
  );

  await page.getByRole("searchbox", { name: "Search categories" }).fill("invitation");
  await expect(category(page, "direct_call:dial")).toHaveCount(0);
  await expect(category(page, "room:invitation_send")).toBeVisible();
  await expect(page.getByText("2 of 13 selected")).toBeVisible();
});

test("the payload reference shows every category with its fields and an example", async ({
  page,
}) => {
  await openWebhooks(page);
  await page.getByRole("link", { name: "Payload reference" }).click();
  await expect(page.getByRole("heading", { name: "Webhook payload reference" })).toBeVisible();
  for (const name of webhookCategories)
    await expect(page.getByRole("region", { name, exact: true })).toBeVisible();
  const end = page.getByRole("region", { name: "direct_call:end", exact: true });
  await expect(end).toContainText("The caller or callee ends a direct call.");
  await expect(end.getByRole("cell", { name: "direct_call.duration" })).toBeVisible();
  await expect(end).toContainText('"end_result": "completed"');
});

test("a save from a page loaded before the platform changed shows the platform's values and writes nothing old unchosen", async ({
  page,
}) => {
  await sandboxSettings(page, {
    enabled: true,
    url: receiver.url,
    include_members: false,
    enabled_events: ["direct_call:dial"],
  });
  await openWebhooks(page);
  // Another administrator (or a script) changes the URL and the categories meanwhile.
  const movedUrl = receiver.url.replace("/hooks", "/moved");
  await sandboxSettings(page, {
    enabled: true,
    url: movedUrl,
    enabled_events: ["room:create", "room:delete"],
  });

  await page.getByRole("switch", { name: "Include members" }).click();
  const dialog = await reviewAndConfirm(page);
  const stale = dialog.getByRole("region", { name: "Changed on the platform" });
  await expect(stale).toBeVisible();
  const urlRow = stale.getByRole("row", { name: "URL changed on the platform" });
  await expect(urlRow).toContainText(receiver.url);
  await expect(urlRow).toContainText(movedUrl);
  await expect(
    stale.getByRole("row", { name: "Categories changed on the platform" }),
  ).toContainText("room:create, room:delete");
  // Fields left alone on the page keep the platform's values unless the administrator picks the old ones.
  await expect(dialog.getByRole("radio", { name: "Keep the platform's URL" })).toBeChecked();
  await expect(dialog.getByRole("radio", { name: "Use my URL" })).not.toBeChecked();
  await expect(dialog.getByRole("definition").filter({ hasText: "off → on" })).toBeVisible();
  // The change to confirm is only the page's own edit: nothing of the old read is in it.
  await expect(dialog.getByLabel("Changes")).not.toContainText("direct_call:dial");
  await dialog.getByRole("button", { name: "Confirm and save" }).click();
  await expect(dialog).toBeHidden();

  expect(await sandboxSettings(page)).toEqual({
    enabled: true,
    url: movedUrl,
    include_members: true,
    enabled_events: ["room:create", "room:delete"],
  });
});

test("a field changed on both sides must be chosen before saving", async ({ page }) => {
  await sandboxSettings(page, {
    enabled: true,
    url: receiver.url,
    enabled_events: ["room:create"],
  });
  await openWebhooks(page);
  await sandboxSettings(page, {
    enabled: true,
    url: `${receiver.url}/theirs`,
    enabled_events: ["room:create"],
  });
  await page.getByLabel("Endpoint URL").fill(`${receiver.url}/mine`);
  const dialog = await reviewAndConfirm(page);
  await expect(dialog.getByRole("button", { name: "Confirm and save" })).toBeDisabled();
  await dialog.getByRole("radio", { name: "Use my URL" }).check();
  await dialog.getByRole("button", { name: "Confirm and save" }).click();
  await expect(dialog).toBeHidden();
  expect((await sandboxSettings(page)).url).toBe(`${receiver.url}/mine`);
});

test("an endpoint nothing was sent to is not said to have answered every attempt with 2xx", async ({
  page,
}) => {
  await sandboxSettings(page, { enabled: true, url: `${receiver.url}?unused=${Date.now()}` });
  await openWebhooks(page);
  const health = page.getByRole("region", { name: "Endpoint health" });
  await expect(health).toContainText("No attempt to");
  await expect(health.locator('[aria-label="Last failure"]')).toHaveText("Last failureNone.");
});

test("the health chart is drawn for a receiver that answered some events 200 and some 500", async ({
  page,
}) => {
  const healthReceiver = await startWebhookReceiver();
  try {
    await sandboxSettings(page, { enabled: true, url: healthReceiver.url, enabled_events: ["*"] });
    const emit = () =>
      page.request.post("/sandbox/local/v1/sandbox/events", {
        headers: { "Api-Token": token },
        data: { category: "room:create" },
      });
    for (let i = 0; i < 4; i++) await emit();
    await healthReceiver.waitFor(4);
    healthReceiver.setBehaviour({ mode: "answer", status: 500 });
    for (let i = 0; i < 2; i++) await emit();
    await healthReceiver.waitFor(6);
    // Until both failures are recorded.
    await expect
      .poll(async () => {
        const answer = await page.request.get(
          "/sandbox/local/v1/sandbox/deliveries/counts?category=room:create",
          {
            headers: { "Api-Token": token },
          },
        );
        return ((await answer.json()) as { counts: { failed: number } }).counts.failed;
      })
      .toBeGreaterThanOrEqual(2);

    await openWebhooks(page);
    await expect(page.getByLabel("Last hour success rate")).toHaveText("66.7%");
    const chart = page.getByTestId("health-chart");
    await expect(chart).toHaveAttribute("data-drawn", "true");
    await expect(chart.locator("canvas")).toBeVisible();
    // The time axis spans the last day, not years around the one slice with attempts.
    await expect(chart).toHaveAttribute("data-span-seconds", String(24 * 3600));
    await expect(page.getByLabel("Last failure")).toContainText("Answered HTTP 500");
  } finally {
    await healthReceiver.stop();
  }
});

test("the delivery log finds old failures with a filter, pages, and sends a selection again after naming the count", async ({
  page,
}) => {
  const logReceiver = await startWebhookReceiver({ mode: "answer", status: 503 });
  try {
    await sandboxSettings(page, { enabled: true, url: logReceiver.url, enabled_events: ["*"] });
    const played = await page.request.post("/sandbox/local/v1/sandbox/direct_calls", {
      headers: { "Api-Token": token },
      data: { caller_id: "ada", callee_id: "grace" },
    });
    const { call_id: callId } = (await played.json()) as { call_id: string };
    await logReceiver.waitFor(3);
    logReceiver.setBehaviour({ mode: "answer", status: 200 });

    await openWebhooks(page);
    await filterLogBy(page, callId);
    const log = page.getByRole("list", { name: "Deliveries" });
    await expect(log.getByRole("listitem")).toHaveCount(3);
    await expect(log.getByRole("listitem").first()).toContainText(
      "Answered with an error (non-2xx)",
    );
    await expect(page.getByRole("status", { name: "Deliveries per outcome" })).toContainText(
      "Answered with an error (non-2xx): 3",
    );

    await page.getByRole("button", { name: "Send again all 3 selected…" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Send 3 deliveries again?" });
    await confirm.getByRole("button", { name: "Send 3 again" }).click();
    await expect(confirm).toBeHidden();
    await logReceiver.waitFor(6);
    expect(
      logReceiver.received
        .slice(3)
        .map((hook) => hook.body.category)
        .sort(),
    ).toEqual(["direct_call:accept", "direct_call:dial", "direct_call:end"]);
    for (const hook of logReceiver.received)
      expect(hook.headers["x-sendbird-signature"]).toMatch(/^[0-9a-f]{64}$/);

    // The first delivery opens onto its request and response.
    const first = log.getByRole("listitem").first();
    await first.getByRole("button", { expanded: false }).first().click();
    await first.getByText("Request headers").first().click();
    await expect(first).toContainText("x-sendbird-signature");
  } finally {
    await logReceiver.stop();
  }
});
