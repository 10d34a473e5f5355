import { z } from "zod";
import type { ProblemRecord } from "@/lib/imports/sources/types";
import { flowResources, type FlowResource } from "./rows";

/**
 * The fidelity forecast (issue 24, item 2(c)): before anything is sent, what carries over
 * exactly, what changes form and what cannot carry, each with its count and a first example,
 * and the rows each import will hold. Counted by the converter as it makes the rows.
 */

export const forecastGroups = ["exact", "changed", "lost"] as const;
export type ForecastGroup = (typeof forecastGroups)[number];

/** What each line says, after its count. */
export const forecastTexts = {
  people: "people become users, with their names and profile images",
  channels: "channels become group channels with their members",
  dms: "DMs become distinct 1-to-1 group channels",
  groupDms: "group DMs become group channels of their members",
  messages: "messages keep their sender, time and text",
  adminMessages: "notices and messages without a sender become admin messages",
  fileMessages: "file messages keep their file's URL, name, size and type",
  botMessages: "messages from bots are sent by their bot users",
  replies: "replies stay in their threads",
  reactions: "reactions keep their emoji and who reacted",
  botsAsUsers: "bots become users marked bot: true in their metadata",
  deactivatedAtEnd:
    "deleted or deactivated people are created, keep their history, and are deactivated at the end",
  deactivatedKeptActive: "deleted or deactivated people stay active (your choice)",
  supergroups: "channels of more than 100 members become supergroups",
  invitedPast100:
    "channels of more than 100 members stay group channels; members past the first 100 are invited after the creation",
  frozen: "archived channels are frozen after their history",
  archivedOpen: "archived channels stay open (your choice)",
  threadChannels: "threads kept as channels of their own become group channels",
  mentions: "messages have mentions written as readable @nickname text",
  noticesAsAdmin: "join, leave, topic and other notices become admin messages",
  noSenderAsAdmin: "messages that name no sender become admin messages",
  filesAsLinks: "messages with text and files keep the text, the files as links below it",
  fileUrlsRewritten: "file URLs are rewritten to where the files are now",
  textCut: "messages longer than 5,000 characters are cut to 5,000",
  edits: "edited messages keep their final text; earlier versions are not kept",
  otherSubtypes: "messages of a kind the platform has no equivalent for arrive as plain messages",
  replyChains: "replies to replies attach to the top of their thread",
  broadcasts: "replies also sent to the channel appear in their thread only",
  repliesFromNonMembers:
    "replies are written by someone no longer among the channel's members: the platform takes a reply only from a member, so the plan refuses these and lists them in the failures CSV",
  reactionsFromNonMembers:
    "reactions are by someone no longer among the channel's members: the platform takes a reaction only from a member, so these are left out",
  customEmoji: "reactions with a custom emoji keep its name; the image is not carried",
  botsSkipped: "bots are left out (your choice)",
  botMessagesSkipped: "messages from bots are left out (your choice)",
  noticesSkipped: "notices are left out (your choice)",
  emails: "people have an email address, which the platform's users do not hold: it is not sent",
  emptyConversations: "conversations have no members and cannot be created",
  messagesWithoutConversation: "messages belong to a conversation that is not created",
  filesMissing:
    "files are not in the export (deleted, or hidden by the plan's limit): only their name is kept",
  filesWithoutUrl:
    "files are in the export but have no web address (Mattermost keeps them in the ZIP's data/ folder): only their name is kept",
  slackPrivateFiles:
    "files keep Slack's private URL, which opens only for someone signed in to that Slack",
  emptyMessages: "messages have no text and no file and are left out",
  reactionsUnnamed:
    "reactions are counted by the export without saying who reacted, and cannot be carried",
  problems: "problems in the export (each listed in the summary) left out what they name",
} as const;
export type ForecastKey = keyof typeof forecastTexts;

export const forecastLineSchema = z.object({
  group: z.enum(forecastGroups),
  key: z.enum(Object.keys(forecastTexts) as [ForecastKey, ...ForecastKey[]]),
  count: z.number(),
  example: z.string().nullable(),
});
export type ForecastLine = z.infer<typeof forecastLineSchema>;

export const exportForecastSchema = z.object({
  /** Rows of each import. */
  rows: z.object({
    users: z.number(),
    group_channels: z.number(),
    messages: z.number(),
  }) satisfies z.ZodType<Record<FlowResource, number>>,
  lines: z.array(forecastLineSchema),
});
export type ExportForecast = z.infer<typeof exportForecastSchema>;

export class ForecastCounter {
  private readonly rows = Object.fromEntries(
    flowResources.map((resource) => [resource, 0]),
  ) as Record<FlowResource, number>;
  private readonly lines = new Map<ForecastKey, ForecastLine>();

  created(resource: FlowResource): void {
    this.rows[resource]++;
  }

  add(group: ForecastGroup, key: ForecastKey, example: string | null, count = 1): void {
    const line = this.lines.get(key);
    if (line) line.count += count;
    else this.lines.set(key, { group, key, count, example });
  }

  problem(record: ProblemRecord): void {
    this.add("lost", "problems", record.message);
  }

  /** The lines in the order of forecastTexts, each group's in turn. */
  result(): ExportForecast {
    const order = Object.keys(forecastTexts) as ForecastKey[];
    const lines = [...this.lines.values()]
      .filter((line) => line.count > 0)
      .sort(
        (a, b) =>
          forecastGroups.indexOf(a.group) - forecastGroups.indexOf(b.group) ||
          order.indexOf(a.key) - order.indexOf(b.key),
      );
    return { rows: { ...this.rows }, lines };
  }
}

/** The count of one line (0 when the forecast has none). */
export function forecastCount(forecast: ExportForecast, key: ForecastKey): number {
  return forecast.lines.find((line) => line.key === key)?.count ?? 0;
}
