import { z } from "zod";
import {
  channelKinds,
  exportFormatSchema,
  problemCodeSchema,
  problemRecordSchema,
  type ChannelKind,
  type ExportRecord,
} from "./types";

/**
 * What a community holds, counted over a reader's records as they stream by (issue 24, 2(a)):
 * people, with bots and deactivated people apart; conversations by kind with their members;
 * messages, replies, reactions, files; the date range; and the problems met. The summary is
 * what crosses from the worker to the page, so it has a schema.
 */

const countsByKind = z.object({
  conversations: z.number(),
  /** Members of all of them, added up. */
  members: z.number(),
  /** The most members one of them has. */
  largest: z.number(),
  /** How many have over 100 members (group channels become supergroups above that). */
  over100: z.number(),
  messages: z.number(),
});

const channelSummary = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(channelKinds),
  members: z.number(),
  messages: z.number(),
  archived: z.boolean(),
});

export const communitySummarySchema = z.object({
  format: exportFormatSchema.nullable(),
  name: z.string().nullable(),
  people: z.object({
    total: z.number(),
    /** People who are neither bots nor deactivated. */
    active: z.number(),
    bots: z.number(),
    /** Deleted or deactivated people (bots apart). */
    deactivated: z.number(),
    /** Not listed by the export, only named by its messages (included in the counts above). */
    fromMessages: z.number(),
  }),
  conversations: z.record(z.enum(channelKinds), countsByKind),
  archived: z.number(),
  /** Public and private channels, most messages first (DMs are counted, not listed). */
  channels: z.array(channelSummary),
  /** Channels left out of `channels` past its cap. */
  channelsNotListed: z.number(),
  messages: z.object({
    /** Every message: replies and notices included. */
    total: z.number(),
    replies: z.number(),
    /** Messages with at least one reply. */
    threads: z.number(),
    /** Join, leave, topic and other notices. */
    notices: z.number(),
    joins: z.number(),
    fromBots: z.number(),
    edited: z.number(),
    withMentions: z.number(),
    mentions: z.number(),
  }),
  reactions: z.object({
    /** One per emoji per message. */
    entries: z.number(),
    /** Everyone's reactions, added up (the source's counts). */
    total: z.number(),
    messages: z.number(),
  }),
  files: z.object({
    total: z.number(),
    available: z.number(),
    deleted: z.number(),
    hidden: z.number(),
    /** Bytes of the files whose size the export gives. */
    bytes: z.number(),
  }),
  /** Unix ms of the first and the last message, or null without messages. */
  firstMessageAt: z.number().nullable(),
  lastMessageAt: z.number().nullable(),
  problems: z.object({
    total: z.number(),
    byCode: z.partialRecord(problemCodeSchema, z.number()),
    /** The first problems met, for showing. */
    first: z.array(problemRecordSchema),
  }),
});
export type CommunitySummary = z.infer<typeof communitySummarySchema>;

export const LISTED_CHANNELS = 5000;
export const LISTED_PROBLEMS = 50;

type ChannelCounts = {
  name: string;
  kind: ChannelKind;
  archived: boolean;
  members: number;
  messages: number;
};

/** Counts records one at a time (`add`), so the records themselves need not be kept. */
export class CommunitySummarizer {
  private readonly summary: CommunitySummary = {
    format: null,
    name: null,
    people: { total: 0, active: 0, bots: 0, deactivated: 0, fromMessages: 0 },
    conversations: Object.fromEntries(
      channelKinds.map((kind) => [
        kind,
        { conversations: 0, members: 0, largest: 0, over100: 0, messages: 0 },
      ]),
    ) as CommunitySummary["conversations"],
    archived: 0,
    channels: [],
    channelsNotListed: 0,
    messages: {
      total: 0,
      replies: 0,
      threads: 0,
      notices: 0,
      joins: 0,
      fromBots: 0,
      edited: 0,
      withMentions: 0,
      mentions: 0,
    },
    reactions: { entries: 0, total: 0, messages: 0 },
    files: { total: 0, available: 0, deleted: 0, hidden: 0, bytes: 0 },
    firstMessageAt: null,
    lastMessageAt: null,
    problems: { total: 0, byCode: {}, first: [] },
  };
  private readonly channels = new Map<string, ChannelCounts>();
  /** Roots with replies, per channel, counted once each. */
  private readonly roots = new Map<string, Set<string>>();

  add(record: ExportRecord): void {
    const summary = this.summary;
    switch (record.type) {
      case "export":
        summary.format = record.format;
        summary.name = record.name;
        break;
      case "person": {
        const people = summary.people;
        people.total++;
        if (record.isBot) people.bots++;
        else if (record.deactivated) people.deactivated++;
        else people.active++;
        if (record.fromMessages) people.fromMessages++;
        break;
      }
      case "channel":
        summary.conversations[record.kind].conversations++;
        if (record.archived) summary.archived++;
        this.channels.set(record.id, {
          name: record.name,
          kind: record.kind,
          archived: record.archived,
          members: 0,
          messages: 0,
        });
        break;
      case "members": {
        const channel = this.channels.get(record.channelId);
        if (!channel) break;
        const kind = summary.conversations[channel.kind];
        kind.members += record.userIds.length - channel.members;
        channel.members = record.userIds.length;
        kind.largest = Math.max(kind.largest, channel.members);
        if (channel.members > 100) kind.over100++;
        break;
      }
      case "message": {
        const messages = summary.messages;
        messages.total++;
        const channel = this.channels.get(record.channelId);
        if (channel) {
          channel.messages++;
          summary.conversations[channel.kind].messages++;
        }
        if (record.parentId !== null) {
          messages.replies++;
          const root = record.threadRootId ?? record.parentId;
          const roots = this.roots.get(record.channelId) ?? new Set<string>();
          this.roots.set(record.channelId, roots);
          if (!roots.has(root)) {
            roots.add(root);
            messages.threads++;
          }
        }
        if (record.notice !== null) messages.notices++;
        if (record.notice === "join") messages.joins++;
        if (record.isBot) messages.fromBots++;
        if (record.edited) messages.edited++;
        if (record.mentionIds.length > 0) {
          messages.withMentions++;
          messages.mentions += record.mentionIds.length;
        }
        if (record.reactions.length > 0) {
          summary.reactions.messages++;
          summary.reactions.entries += record.reactions.length;
          for (const reaction of record.reactions) summary.reactions.total += reaction.count;
        }
        for (const file of record.files) {
          summary.files.total++;
          summary.files[file.state]++;
          summary.files.bytes += file.size ?? 0;
        }
        if (summary.firstMessageAt === null || record.createdAt < summary.firstMessageAt)
          summary.firstMessageAt = record.createdAt;
        if (summary.lastMessageAt === null || record.createdAt > summary.lastMessageAt)
          summary.lastMessageAt = record.createdAt;
        break;
      }
      case "problem": {
        const problems = summary.problems;
        problems.total++;
        problems.byCode[record.code] = (problems.byCode[record.code] ?? 0) + 1;
        if (problems.first.length < LISTED_PROBLEMS) problems.first.push(record);
        break;
      }
    }
  }

  result(): CommunitySummary {
    const listed = [...this.channels]
      .filter(([, channel]) => channel.kind === "public" || channel.kind === "private")
      .sort(([, a], [, b]) => b.messages - a.messages);
    return {
      ...this.summary,
      channels: listed.slice(0, LISTED_CHANNELS).map(([id, channel]) => ({ id, ...channel })),
      channelsNotListed: Math.max(0, listed.length - LISTED_CHANNELS),
    };
  }
}

/** The summary of records already in hand (tests, small exports). */
export async function summarize(
  records: AsyncIterable<ExportRecord> | Iterable<ExportRecord>,
): Promise<CommunitySummary> {
  const summarizer = new CommunitySummarizer();
  for await (const record of records) summarizer.add(record);
  return summarizer.result();
}
