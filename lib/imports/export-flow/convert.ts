import { MESSAGE_LENGTH_MAX } from "@/lib/schemas/messages";
import type {
  ChannelKind,
  ChannelRecord,
  ExportFormat,
  ExportRecord,
  MessageRecord,
  PersonRecord,
  SourceFile,
} from "@/lib/imports/sources/types";
import type { ExportChoices } from "./choices";
import { ForecastCounter, type ExportForecast } from "./forecast";
import { flowRow, type FlowRow } from "./rows";

/**
 * Records of an export in, rows of the three imports out (issue 24, item 2(d)), one record at
 * a time: a person is a users row, a conversation with its members a group channels row, a
 * message a messages row. While converting it counts the forecast (item 2(c)), so the forecast
 * and the rows can never disagree. It keeps only what later records refer to: each person's
 * name (for mentions) and bot mark, and each conversation's kind and members.
 */

/** Supergroups take more members than a group channel's creation (100); see choices.ts. */
const SUPERGROUP_ABOVE = 100;
const CHANNEL_NAME_MAX = 191;

type Person = { name: string; isBot: boolean; deactivated: boolean };
type Conversation = { kind: ChannelKind; name: string; members: Set<string> | null };

export class ExportConverter {
  private readonly people = new Map<string, Person>();
  private readonly conversations = new Map<string, Conversation>();
  private pendingChannel: ChannelRecord | null = null;
  private format: ExportFormat | null = null;
  readonly forecast = new ForecastCounter();

  constructor(private readonly choices: ExportChoices) {}

  /** The rows this record completes (a conversation waits for its members record). */
  add(record: ExportRecord): FlowRow[] {
    const rows: FlowRow[] = [];
    // A conversation waits for its members; the next conversation, or the end, closes it without.
    if (this.pendingChannel && record.type === "channel")
      this.pushChannel(rows, this.pendingChannel, null);
    switch (record.type) {
      case "export":
        this.format = record.format;
        break;
      case "person":
        this.pushPerson(rows, record);
        break;
      case "channel":
        this.pendingChannel = record;
        // Known before its members: a Discord export's members are who wrote, after the messages.
        this.conversations.set(record.id, { kind: record.kind, name: record.name, members: null });
        break;
      case "members":
        if (this.pendingChannel) this.pushChannel(rows, this.pendingChannel, record.userIds);
        break;
      case "message":
        this.pushMessage(rows, record);
        break;
      case "problem":
        this.forecast.problem(record);
        break;
    }
    return rows;
  }

  /** The rows still held when the records end. */
  finish(): FlowRow[] {
    const rows: FlowRow[] = [];
    if (this.pendingChannel) this.pushChannel(rows, this.pendingChannel, null);
    return rows;
  }

  result(): ExportForecast {
    return this.forecast.result();
  }

  private pushPerson(rows: FlowRow[], person: PersonRecord): void {
    this.people.set(person.id, {
      name: person.displayName,
      isBot: person.isBot,
      deactivated: person.deactivated,
    });
    const count = this.forecast;
    if (person.isBot && this.choices.bots === "skip") {
      count.add("lost", "botsSkipped", person.displayName);
      return;
    }
    const deactivated = person.deactivated && !person.isBot;
    count.created("users");
    count.add("exact", "people", person.displayName);
    if (person.isBot) count.add("changed", "botsAsUsers", person.displayName);
    if (deactivated)
      count.add(
        "changed",
        this.choices.deactivate ? "deactivatedAtEnd" : "deactivatedKeptActive",
        person.displayName,
      );
    if (person.email !== null) count.add("lost", "emails", person.displayName);
    rows.push(
      flowRow("users", {
        user_id: person.id,
        nickname: person.displayName.slice(0, 80),
        profile_url: person.avatarUrl ?? "",
        is_active: deactivated && this.choices.deactivate ? "false" : "true",
        bot: person.isBot ? "true" : "",
        username: person.username ?? "",
      }),
    );
  }

  private pushChannel(rows: FlowRow[], channel: ChannelRecord, memberIds: string[] | null): void {
    this.pendingChannel = null;
    const members = (memberIds ?? []).filter((id) => !this.skipsPerson(id));
    const count = this.forecast;
    this.conversations.set(channel.id, {
      kind: channel.kind,
      name: channel.name,
      members: memberIds === null ? null : new Set(members),
    });
    const label = conversationLabel(channel);
    if (members.length === 0) {
      count.add("lost", "emptyConversations", label);
      return;
    }
    const isChannel = channel.kind === "public" || channel.kind === "private";
    const isSuper = isChannel && this.choices.supergroups && members.length > SUPERGROUP_ABOVE;
    const frozen = channel.archived && this.choices.freezeArchived;
    count.created("group_channels");
    count.add("exact", isChannel ? "channels" : channel.kind === "dm" ? "dms" : "groupDms", label);
    if (isSuper) count.add("changed", "supergroups", `${label} (${members.length} members)`);
    else if (members.length > SUPERGROUP_ABOVE)
      count.add("changed", "invitedPast100", `${label} (${members.length} members)`);
    if (frozen) count.add("changed", "frozen", label);
    else if (channel.archived) count.add("changed", "archivedOpen", label);
    if (channel.parentChannelId !== null) count.add("changed", "threadChannels", label);
    const data: Record<string, string> = {};
    if (channel.topic) data.topic = channel.topic;
    if (channel.purpose) data.purpose = channel.purpose;
    rows.push(
      flowRow("group_channels", {
        source_id: channel.id,
        name: channel.name.slice(0, CHANNEL_NAME_MAX),
        user_ids: members.join(";"),
        is_distinct: channel.kind === "dm" ? "true" : "false",
        is_public: channel.kind === "public" && this.choices.publicJoinable ? "true" : "false",
        is_super: isSuper ? "true" : "false",
        frozen: frozen ? "true" : "false",
        custom_type: `${this.format ?? "export"}_${channel.kind}`,
        data: Object.keys(data).length > 0 ? JSON.stringify(data) : "",
      }),
    );
  }

  private skipsPerson(id: string): boolean {
    return this.choices.bots === "skip" && this.people.get(id)?.isBot === true;
  }

  private pushMessage(rows: FlowRow[], message: MessageRecord): void {
    const count = this.forecast;
    const conversation = this.conversations.get(message.channelId);
    const where = `${conversation ? conversationLabel(conversation) : message.channelId}, ${new Date(message.createdAt).toISOString().slice(0, 10)}`;
    const example = (text: string) => `${where}: ${clip(text)}`;
    if (!conversation || conversation.members?.size === 0) {
      count.add("lost", "messagesWithoutConversation", example(message.text));
      return;
    }
    const fromBot =
      message.isBot ||
      (message.senderId !== null && this.people.get(message.senderId)?.isBot === true);
    if (fromBot && this.choices.bots === "skip") {
      count.add("lost", "botMessagesSkipped", example(message.text));
      return;
    }
    if (message.notice !== null && this.choices.notices === "skip") {
      count.add(
        "lost",
        "noticesSkipped",
        example(message.text || message.subtype || message.notice),
      );
      return;
    }

    let text = message.text;
    if (this.choices.mentions === "readable") {
      // Notices too: Slack's "<@U…> has joined the channel" names its subject so.
      const readable = this.readableMentions(text);
      if (readable !== text) count.add("changed", "mentions", example(readable));
      text = readable;
    }
    if (this.format === "slack") text = slackMarkup(text);

    let type: "MESG" | "FILE" | "ADMM" = "MESG";
    if (message.notice !== null) {
      type = "ADMM";
      if (text.trim() === "") text = this.noticeText(message);
      count.add("changed", "noticesAsAdmin", example(text));
    } else if (message.senderId === null) {
      type = "ADMM";
      count.add("changed", "noSenderAsAdmin", example(text));
    }

    const files = message.files;
    const available = files.filter((file) => file.state === "available" && file.url !== null);
    for (const file of files)
      if (file.state !== "available")
        count.add("lost", "filesMissing", example(file.name || "(no name)"));
      else if (file.url === null) count.add("lost", "filesWithoutUrl", example(file.name));
    let fileCells: { url: string; file_name: string; file_size: string; file_type: string } | null =
      null;
    if (type === "MESG" && available.length === 1 && text.trim() === "") {
      type = "FILE";
      const file = available[0]!;
      fileCells = {
        url: this.fileUrl(file, example),
        file_name: file.name,
        file_size: file.size === null ? "" : String(file.size),
        file_type: file.mimeType ?? "",
      };
      count.add("exact", "fileMessages", example(file.name));
    } else if (available.length > 0) {
      const links = available.map((file) => `${file.name}: ${this.fileUrl(file, example)}`);
      text = [text, ...links].filter((line) => line.trim() !== "").join("\n");
      count.add("changed", "filesAsLinks", example(available.map((file) => file.name).join(", ")));
    }
    if (type !== "FILE" && text.trim() === "") {
      text =
        files.length > 0
          ? `[${files.map((file) => file.name || "file").join(", ")}: not in the export]`
          : "";
      if (text === "") {
        count.add("lost", "emptyMessages", example(message.subtype ?? "(empty)"));
        return;
      }
    }
    if (text.length > MESSAGE_LENGTH_MAX) {
      text = text.slice(0, MESSAGE_LENGTH_MAX);
      count.add("changed", "textCut", example(text));
    }

    if (message.edited) {
      count.add("changed", "edits", example(text));
    }
    if (message.subtype !== null && message.notice === null && !KNOWN_SUBTYPES.has(message.subtype))
      count.add("changed", "otherSubtypes", `${message.subtype} — ${example(text)}`);

    const rootId = message.threadRootId ?? message.parentId;
    if (rootId !== null) {
      count.add("exact", "replies", example(text));
      if (message.parentId !== null && message.parentId !== rootId)
        count.add("changed", "replyChains", example(text));
      if (message.alsoInChannel) count.add("changed", "broadcasts", example(text));
      if (message.senderId !== null && conversation.members?.has(message.senderId) === false)
        count.add("lost", "repliesFromNonMembers", example(text));
    }

    // The platform takes a reaction only from a member of the channel: the others' are left
    // out of the row (never sent to be refused), and forecast as lost.
    const member = (id: string) => conversation.members?.has(id) !== false;
    const reactions = message.reactions
      .map((reaction) => {
        const people = reaction.userIds.filter((id) => !this.skipsPerson(id));
        return {
          key: reaction.name,
          user_ids: people.filter(member),
          nonMembers: people.filter((id) => !member(id)).length,
          count: reaction.count - people.filter((id) => !member(id)).length,
          custom: reaction.emojiId !== null,
        };
      })
      .filter(
        (reaction) => reaction.user_ids.length > 0 || reaction.count > 0 || reaction.nonMembers > 0,
      );
    for (const reaction of reactions) {
      const emoji = /^[\w+-]+$/.test(reaction.key) ? `:${reaction.key}:` : reaction.key;
      const reactionExample = example(`${emoji} on “${clip(text, 40)}”`);
      if (reaction.nonMembers > 0)
        count.add("lost", "reactionsFromNonMembers", reactionExample, reaction.nonMembers);
      if (reaction.user_ids.length === 0 && reaction.count <= 0) continue;
      count.add("exact", "reactions", reactionExample, reaction.user_ids.length);
      if (reaction.custom) count.add("changed", "customEmoji", reactionExample);
      if (reaction.count > reaction.user_ids.length)
        count.add(
          "lost",
          "reactionsUnnamed",
          reactionExample,
          reaction.count - reaction.user_ids.length,
        );
    }
    const mentionIds = [...new Set(message.mentionIds)].filter((id) => !this.skipsPerson(id));

    count.created("messages");
    count.add("exact", type === "ADMM" ? "adminMessages" : "messages", example(text));
    if (fromBot) count.add("exact", "botMessages", example(text));
    const named = reactions.filter((reaction) => reaction.user_ids.length > 0);
    rows.push(
      flowRow("messages", {
        channel: message.channelId,
        message_type: type,
        user_id: type === "ADMM" ? "" : (message.senderId ?? ""),
        message: type === "FILE" ? "" : text,
        timestamp: String(message.createdAt),
        source_id: message.id,
        mentioned_user_ids: type === "ADMM" ? "" : mentionIds.join(";"),
        ...fileCells,
        parent_id: rootId ?? "",
        reactions:
          named.length > 0
            ? JSON.stringify(
                named.map((reaction) => ({ key: reaction.key, user_ids: reaction.user_ids })),
              )
            : "",
      }),
    );
  }

  private readableMentions(text: string): string {
    // Slack <@U123> or <@U123|name>; Discord <@123> or <@!123>.
    return text.replace(/<@!?([A-Za-z0-9._-]+)(?:\|[^>]*)?>/g, (whole, id: string) => {
      const person = this.people.get(id);
      return person ? `@${person.name}` : whole;
    });
  }

  private noticeText(message: MessageRecord): string {
    const who =
      message.senderId === null
        ? "Someone"
        : (this.people.get(message.senderId)?.name ?? message.senderId);
    const what: Record<string, string> = {
      join: "joined",
      leave: "left",
      topic: "changed the topic",
      purpose: "changed the purpose",
      rename: "renamed the channel",
      archive: "archived the channel",
      unarchive: "unarchived the channel",
      pin: "pinned a message",
    };
    return `${who} ${what[message.notice ?? ""] ?? `(${message.subtype ?? "notice"})`}`;
  }

  private fileUrl(file: SourceFile, example: (text: string) => string): string {
    const url = file.url!;
    const { files, fileUrlFrom, fileUrlTo } = this.choices;
    if (files === "rewrite" && url.startsWith(fileUrlFrom)) {
      this.forecast.add("changed", "fileUrlsRewritten", example(file.name));
      return fileUrlTo + url.slice(fileUrlFrom.length);
    }
    if (/^https:\/\/files\.slack\.com\//.test(url))
      this.forecast.add("lost", "slackPrivateFiles", example(file.name));
    return url;
  }
}

/** Subtypes the readers turn into plain messages, replies or bot messages without loss. */
const KNOWN_SUBTYPES = new Set([
  "thread_broadcast",
  "file_share",
  "bot_message",
  "me_message",
  "Default",
  "Reply",
]);

function conversationLabel(conversation: { kind: ChannelKind; name: string }): string {
  return conversation.kind === "public" || conversation.kind === "private"
    ? `#${conversation.name}`
    : conversation.name;
}

function clip(text: string, length = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** Slack's escaped text and links, as people read them: `<https://x|label>` → `label (https://x)`. */
function slackMarkup(text: string): string {
  return text
    .replace(/<#[A-Z0-9]+\|([^>]+)>/g, "#$1")
    .replace(/<(https?:\/\/[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<(https?:\/\/[^>]+)>/g, "$1")
    .replace(/<!(here|channel|everyone)>/g, "@$1")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}
