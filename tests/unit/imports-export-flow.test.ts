import { describe, expect, it } from "vitest";
import {
  convertRecords,
  defaultExportChoices,
  exportChoicesSchema,
  flowColumns,
  flowMapping,
  flowResources,
  forecastCount,
  forecastRecords,
  type ExportChoices,
  type ExportForecast,
  type FlowResource,
} from "@/lib/imports/export-flow";
import { findField } from "@/lib/imports/fields";
import { mappingProblems } from "@/lib/imports/mapping";
import { ExportRowsReader } from "@/lib/imports/parse/export-rows";
import { prepareRow } from "@/lib/imports/prepare";
import type { ExportRecord } from "@/lib/imports/sources";
import { expected, fixtureFile, fixtureZip, type ExportFixture } from "../fixtures/exports/build";
import { readAllRecords } from "../fixtures/exports/read";

const formats: ExportFixture[] = ["slack", "discord", "mattermost"];

type Row = Record<string, string> & {
  user_ids: string;
  reactions: string;
  message: string;
  url: string;
};
type Converted = {
  rows: Record<FlowResource, Row[]>;
  forecast: ExportForecast;
};

/** The rows the records make, each as column → cell. */
async function convert(records: ExportRecord[], choices: ExportChoices): Promise<Converted> {
  const rows: Converted["rows"] = { users: [], group_channels: [], messages: [] };
  const generator = convertRecords(records, choices);
  for (;;) {
    const step = await generator.next();
    if (step.done) return { rows, forecast: step.value };
    const columns = flowColumns[step.value.resource] as readonly string[];
    rows[step.value.resource].push(
      Object.fromEntries(columns.map((column, at) => [column, step.value.values[at]!])) as Row,
    );
  }
}

const recordsOf = new Map<ExportFixture, Promise<ExportRecord[]>>();
function fixtureRecords(format: ExportFixture): Promise<ExportRecord[]> {
  if (!recordsOf.has(format))
    recordsOf.set(format, readAllRecords([fixtureFile(fixtureZip(format), `${format}.zip`)]));
  return recordsOf.get(format)!;
}

describe("the imports' columns and mapping", () => {
  it("are accepted as a file's would be, the thread columns mapped to their fields", () => {
    for (const resource of flowResources) {
      const columns = [...flowColumns[resource]];
      expect(mappingProblems(resource, columns, flowMapping(resource), {})).toEqual([]);
    }
    const mapping = flowMapping("messages");
    for (const field of ["parent_id", "reactions"]) {
      expect(mapping[field]).toBe(field);
      expect(findField("messages", field)).toBeDefined();
    }
  });

  it("refuses a prefix rule without its two halves", () => {
    const refused = exportChoicesSchema.safeParse({ ...defaultExportChoices, files: "rewrite" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path[0])).toEqual([
      "fileUrlFrom",
      "fileUrlTo",
    ]);
  });
});

describe.each(formats)("a %s export's records become the three imports' rows", (format) => {
  const counts = expected(format);

  it("makes a user per person, a group channel per conversation and a row per message", async () => {
    const { rows, forecast } = await convert(await fixtureRecords(format), defaultExportChoices);
    const people = counts.people.listed + counts.people.fromMessages;
    expect(rows.users).toHaveLength(people);
    expect(rows.group_channels).toHaveLength(
      Object.values(counts.conversations).reduce((sum, count) => sum + count, 0),
    );
    expect(rows.messages).toHaveLength(counts.messages);
    expect(forecast.rows).toEqual({
      users: rows.users.length,
      group_channels: rows.group_channels.length,
      messages: rows.messages.length,
    });

    // People: bots marked, deleted people created to be deactivated.
    expect(rows.users.filter((row) => row.bot === "true")).toHaveLength(counts.people.bots);
    expect(rows.users.filter((row) => row.is_active === "false")).toHaveLength(
      counts.people.deactivated,
    );
    // Conversations: members as listed, the one over 100 a supergroup, DMs distinct, archived frozen.
    for (const [id, members] of Object.entries(counts.members)) {
      const row = rows.group_channels.find((channel) => channel.source_id === id);
      expect(row?.user_ids.split(";"), id).toHaveLength(members);
      expect(row?.is_super, id).toBe(members > 100 ? "true" : "false");
    }
    expect(rows.group_channels.filter((row) => row.is_distinct === "true")).toHaveLength(
      counts.conversations.dm,
    );
    expect(rows.group_channels.filter((row) => row.frozen === "true")).toHaveLength(
      counts.archived,
    );
    // Messages: replies under their root, reactions with who reacted, notices as admin messages.
    expect(rows.messages.filter((row) => row.parent_id !== "")).toHaveLength(counts.replies);
    expect(rows.messages.filter((row) => row.message_type === "ADMM")).toHaveLength(counts.notices);
    const reactions = rows.messages.flatMap((row) =>
      row.reactions === "" ? [] : (JSON.parse(row.reactions) as Array<{ key: string }>),
    );
    // But those by someone who left the channel (Slack: Dave's ✅ in #old-project): the
    // platform takes a reaction only from a member, so it is left out and forecast as lost.
    const fromNonMembers = { slack: 1, discord: 0, mattermost: 0 }[format];
    expect(reactions).toHaveLength(counts.reactions.entries - fromNonMembers);
    expect(forecastCount(forecast, "reactionsFromNonMembers")).toBe(fromNonMembers);
    expect(rows.messages.filter((row) => row.mentioned_user_ids !== "")).toHaveLength(
      counts.mentions.messages,
    );
    expect(rows.messages.some((row) => /<@!?\w+>/.test(row.message))).toBe(false);
    // Every message's channel is a converted conversation, every sender a converted person.
    const channels = new Set(rows.group_channels.map((row) => row.source_id));
    const users = new Set(rows.users.map((row) => row.user_id));
    for (const row of rows.messages) {
      expect(channels.has(row.channel), row.channel).toBe(true);
      if (row.user_id !== "") expect(users.has(row.user_id), row.user_id).toBe(true);
    }
    // Source ids are unique within each channel: the dedup ids (and a newer export's delta) rest on them.
    const keys = rows.messages.map((row) => `${row.channel}\u0000${row.source_id}`);
    expect(new Set(keys).size).toBe(keys.length);

    // The forecast counts what the rows hold.
    expect(forecastCount(forecast, "edits")).toBe(counts.edited);
    expect(forecastCount(forecast, "noticesAsAdmin")).toBe(counts.notices);
    expect(forecastCount(forecast, "supergroups")).toBe(
      Object.values(counts.members).filter((members) => members > 100).length,
    );
    expect(forecastCount(forecast, "filesMissing")).toBe(
      counts.files.deleted + counts.files.hidden,
    );
    expect(forecastCount(forecast, "deactivatedAtEnd")).toBe(counts.people.deactivated);
    expect(forecastCount(forecast, "replies")).toBe(counts.replies);
  });

  it("makes rows the import validates without an error", async () => {
    const { rows } = await convert(await fixtureRecords(format), defaultExportChoices);
    for (const resource of flowResources) {
      const columns = [...flowColumns[resource]];
      rows[resource].forEach((row, index) => {
        const prepared = prepareRow(
          resource,
          columns,
          flowMapping(resource),
          columns.map((column) => row[column]!),
          index,
          {},
        );
        const errors = prepared.issues.filter((issue) => issue.severity === "error");
        expect(errors, `${resource} row ${index}: ${JSON.stringify(row)}`).toEqual([]);
      });
    }
  });

  it("leaves out what the choices leave out, and counts it in the forecast", async () => {
    const choices: ExportChoices = {
      ...defaultExportChoices,
      notices: "skip",
      bots: "skip",
      freezeArchived: false,
      supergroups: false,
      deactivate: false,
    };
    const { rows, forecast } = await convert(await fixtureRecords(format), choices);
    expect(rows.users.some((row) => row.bot === "true")).toBe(false);
    expect(rows.users.some((row) => row.is_active === "false")).toBe(false);
    expect(
      rows.group_channels.some((row) => row.frozen === "true" || row.is_super === "true"),
    ).toBe(false);
    expect(rows.messages.some((row) => row.message_type === "ADMM")).toBe(false);
    expect(forecastCount(forecast, "noticesSkipped")).toBe(counts.notices);
    expect(rows.messages).toHaveLength(
      counts.messages - counts.notices - forecastCount(forecast, "botMessagesSkipped"),
    );
    expect(forecastCount(forecast, "botsSkipped")).toBe(counts.people.bots);
    expect(forecastCount(forecast, "invitedPast100")).toBe(1);
    expect(await forecastRecords(await fixtureRecords(format), choices)).toEqual(forecast);
  });
});

describe("the worker's rows, chunk by chunk", () => {
  it("numbers each import's rows from 0 within the limits asked, and ends with the forecast", async () => {
    const file = fixtureFile(fixtureZip("slack"), "acme.zip");
    const reader = new ExportRowsReader([file], defaultExportChoices);
    const seen: Record<FlowResource, number[]> = { users: [], group_channels: [], messages: [] };
    let forecast: ExportForecast | null = null;
    for (;;) {
      const { batch, forecast: last } = await reader.take(10, 600_000);
      if (!batch) {
        forecast = last;
        break;
      }
      expect(batch.rows.length).toBeLessThanOrEqual(10);
      seen[batch.resource].push(...batch.rows.map((row) => row.index));
    }
    expect(forecast?.rows).toEqual({
      users: seen.users.length,
      group_channels: seen.group_channels.length,
      messages: seen.messages.length,
    });
    for (const resource of flowResources)
      expect(seen[resource]).toEqual(seen[resource].map((_, at) => at));
  });

  it("rewrites file URLs by the prefix rule, and flags Slack's private URLs it leaves", async () => {
    const records = await fixtureRecords("slack");
    const kept = await convert(records, defaultExportChoices);
    expect(forecastCount(kept.forecast, "slackPrivateFiles")).toBeGreaterThan(0);
    const rewritten = await convert(records, {
      ...defaultExportChoices,
      files: "rewrite",
      fileUrlFrom: "https://files.slack.com/",
      fileUrlTo: "https://files.example.com/slack/",
    });
    expect(forecastCount(rewritten.forecast, "slackPrivateFiles")).toBe(0);
    expect(forecastCount(rewritten.forecast, "fileUrlsRewritten")).toBe(
      forecastCount(kept.forecast, "slackPrivateFiles"),
    );
    // A file alone is a file message; a file with text, a link below the text.
    const urls = rewritten.rows.messages.flatMap((row) => [
      row.url,
      ...(row.message.match(/https:\/\/\S+/g) ?? []),
    ]);
    expect(urls.filter((url) => url.startsWith("https://files.example.com/slack/"))).toHaveLength(
      forecastCount(kept.forecast, "slackPrivateFiles"),
    );
    expect(urls.some((url) => url.includes("files.slack.com"))).toBe(false);
  });
});
