import type { OpenedExport } from "../detect";
import { EntryError, jsonItems, type ExportEntry } from "../entries";
import { ChannelMessageIds } from "../message-ids";
import { problem, repeatedId, unreadableFile, unreadableItem } from "../problems";
import {
  describeLocation,
  type ChannelKind,
  type ChannelRecord,
  type ExportRecord,
  type PersonRecord,
  type SourceLocation,
} from "../types";
import { filled, isObject, object, strings, type Fields } from "../values";
import { slackMessage } from "./messages";

/**
 * A Slack workspace export: users.json, then the conversation lists (channels.json public,
 * groups.json private, mpims.json group DMs, dms.json DMs), then each conversation's folder of
 * day files (`general/2024-01-02.json`, a JSON array of that day's messages), oldest first.
 * Entries are read in that order whatever their order in the ZIP.
 */

const conversationFiles: Array<{ file: string; kind: ChannelKind }> = [
  { file: "channels.json", kind: "public" },
  { file: "groups.json", kind: "private" },
  { file: "mpims.json", kind: "group_dm" },
  { file: "dms.json", kind: "dm" },
];

const DAY_FILE = /^(.+)\/(\d{4}-\d{2}-\d{2})\.json$/;

type Person = { displayName: string; isBot: boolean };

/** What the reading keeps from one file to the next: the people, by id. */
type People = {
  byId: Map<string, Person>;
  /** A bot's `bot_id` → its user's id. */
  botUsers: Map<string, string>;
  /** Senders missing from users.json already named in a problem. */
  named: Set<string>;
};

type Conversation = { record: ChannelRecord; days: ExportEntry[] };

export async function* readSlackExport(opened: OpenedExport): AsyncGenerator<ExportRecord> {
  const { root, entries } = opened;
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  yield {
    type: "export",
    format: "slack",
    name: opened.name.replace(/\.zip$/i, ""),
    source: { path: opened.name },
  };
  const people: People = { byId: new Map(), botUsers: new Map(), named: new Set() };
  // users.json, or org_users.json in an Enterprise Grid export.
  const users = byPath.get(`${root}users.json`) ?? byPath.get(`${root}org_users.json`);
  if (users) yield* readPeople(users, people);
  const conversations = yield* readConversations(byPath, root, people);
  yield* placeDays(entries, root, conversations);
  for (const conversation of conversations) yield* readDays(conversation, people);
}

async function* readPeople(entry: ExportEntry, people: People): AsyncGenerator<ExportRecord> {
  for await (const record of readList(entry, "people", "users")) {
    if ("problem" in record) {
      yield record.problem;
      continue;
    }
    const { value, source } = record;
    const person = slackPerson(value, source);
    if (typeof person === "string") {
      yield unreadableItem(source, person);
    } else if (people.byId.has(person.id)) {
      yield repeatedId(source, `person ${person.id}`);
    } else {
      people.byId.set(person.id, { displayName: person.displayName, isBot: person.isBot });
      const botId = filled(object(object(value).profile).bot_id);
      if (botId) people.botUsers.set(botId, person.id);
      yield person;
    }
  }
}

/** The conversation lists, each conversation followed by its members; returns them in that order. */
async function* readConversations(
  byPath: Map<string, ExportEntry>,
  root: string,
  people: People,
): AsyncGenerator<ExportRecord, Conversation[]> {
  const conversations: Conversation[] = [];
  const ids = new Set<string>();
  for (const { file, kind } of conversationFiles) {
    const entry = byPath.get(`${root}${file}`);
    if (!entry) continue;
    for await (const record of readList(entry, "conversations", file.replace(".json", ""))) {
      if ("problem" in record) {
        yield record.problem;
        continue;
      }
      const { value, source } = record;
      if (!isObject(value) || !filled(value.id)) {
        yield unreadableItem(source, 'is not a conversation with an "id"');
        continue;
      }
      const id = value.id as string;
      if (ids.has(id)) {
        yield repeatedId(source, `conversation ${id}`);
        continue;
      }
      ids.add(id);
      const memberIds = strings(value.members);
      const name =
        filled(value.name) ??
        memberIds.map((member) => people.byId.get(member)?.displayName ?? member).join(", ");
      const channel: ChannelRecord = {
        type: "channel",
        id,
        kind,
        name: name || id,
        topic: filled(object(value.topic).value),
        purpose: filled(object(value.purpose).value),
        createdAt: typeof value.created === "number" ? value.created * 1000 : null,
        creatorId: filled(value.creator),
        archived: value.is_archived === true,
        parentChannelId: null,
        source,
      };
      yield channel;
      const unknown = memberIds.filter((member) => !people.byId.has(member));
      if (unknown.length > 0)
        yield problem(
          "unknown-person",
          `${describeLocation(source)} lists ${unknown.length === 1 ? "a member" : `${unknown.length} members`} of ${channelLabel(channel)} missing from users.json (${unknown.slice(0, 3).join(", ")}${unknown.length > 3 ? ", …" : ""}): they are left out of its members.`,
          source,
        );
      yield {
        type: "members",
        channelId: id,
        userIds: memberIds.filter((member) => people.byId.has(member)),
        listed: true,
        source,
      };
      conversations.push({ record: channel, days: [] });
    }
  }
  return conversations;
}

/**
 * Puts each day file with its conversation (folders are named by the conversation's name, DMs'
 * by id), oldest first; a folder of no listed conversation is named and left out.
 */
function* placeDays(
  entries: ExportEntry[],
  root: string,
  conversations: Conversation[],
): Generator<ExportRecord> {
  const folders = new Map<string, Conversation>();
  for (const conversation of conversations) {
    const { id, name, kind } = conversation.record;
    folders.set(kind === "dm" ? id : name, conversation);
    if (!folders.has(id)) folders.set(id, conversation);
  }
  const strays = new Map<string, number>();
  for (const entry of entries) {
    const match = entry.path.startsWith(root) ? DAY_FILE.exec(entry.path.slice(root.length)) : null;
    if (!match) continue;
    const conversation = folders.get(match[1]!);
    if (conversation) conversation.days.push(entry);
    else strays.set(match[1]!, (strays.get(match[1]!) ?? 0) + 1);
  }
  for (const conversation of conversations)
    conversation.days.sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const [folder, files] of strays)
    yield problem(
      "unknown-channel",
      `The folder ${root}${folder}/ holds ${files === 1 ? "a day file" : `${files} day files`} of a conversation that is in none of channels.json, groups.json, mpims.json and dms.json, so it cannot be placed: its messages are left out.`,
      { path: `${root}${folder}/` },
    );
}

/** One conversation's messages, day file by day file; a broken file is named and the next read. */
async function* readDays(conversation: Conversation, people: People): AsyncGenerator<ExportRecord> {
  const channel = conversation.record;
  const ids = new ChannelMessageIds(channelLabel(channel));
  for (const entry of conversation.days) {
    // A sender missing from users.json, made a person before the message that names them.
    const pending: ExportRecord[] = [];
    try {
      for await (const { value, item } of jsonItems(entry)) {
        const source = { path: entry.path, item };
        const message = slackMessage(value, channel.id, source, (fields) =>
          sender(fields, source, people, pending),
        );
        yield* pending.splice(0);
        yield ids.admit(message, source);
      }
    } catch (error) {
      if (!(error instanceof EntryError)) throw error;
      yield* pending.splice(0);
      yield unreadableFile(error, entry.path, "its messages");
    }
  }
  yield* ids.missingRoots();
}

function sender(
  message: Fields,
  source: SourceLocation,
  people: People,
  pending: ExportRecord[],
): { id: string | null; isBot: boolean } {
  const found = slackSender(message, people.botUsers);
  if (found.id && !people.byId.has(found.id)) {
    const placeholder = placeholderPerson(found.id, message, source);
    people.byId.set(found.id, { displayName: placeholder.displayName, isBot: placeholder.isBot });
    if (!placeholder.isBot && !people.named.has(found.id)) {
      people.named.add(found.id);
      pending.push(
        problem(
          "unknown-person",
          `${describeLocation(source)} is from ${found.id}, who is not in users.json (a deleted account, or a guest of a shared channel): a person is made for them from what their messages say (${placeholder.displayName}).`,
          source,
        ),
      );
    }
    pending.push(placeholder);
  }
  const known = found.id ? people.byId.get(found.id)!.isBot : false;
  return { id: found.id, isBot: found.isBot || known };
}

/** A list file (users.json, channels.json…), item by item; a broken file becomes a problem. */
async function* readList(
  entry: ExportEntry,
  what: string,
  label: string,
): AsyncGenerator<
  { value: unknown; source: SourceLocation } | { problem: ReturnType<typeof problem> }
> {
  try {
    for await (const { value, item } of jsonItems(entry))
      yield { value, source: { path: entry.path, item } };
  } catch (error) {
    if (!(error instanceof EntryError)) throw error;
    yield { problem: unreadableFile(error, entry.path, `the ${what} of ${label}`) };
  }
}

function channelLabel(channel: ChannelRecord): string {
  return channel.kind === "public" || channel.kind === "private"
    ? `#${channel.name}`
    : `the conversation ${channel.id} (${channel.name})`;
}

function slackPerson(value: unknown, source: SourceLocation): PersonRecord | string {
  if (!isObject(value)) return "is not a JSON object";
  const id = filled(value.id);
  if (!id) return 'is not a person with an "id"';
  const profile = object(value.profile);
  const realName = filled(value.real_name) ?? filled(profile.real_name);
  const username = filled(value.name);
  return {
    type: "person",
    id,
    username,
    displayName: filled(profile.display_name) ?? realName ?? username ?? id,
    realName,
    email: filled(profile.email),
    avatarUrl:
      filled(profile.image_512) ?? filled(profile.image_192) ?? filled(profile.image_72) ?? null,
    // Slackbot is a bot that users.json does not mark as one.
    isBot: value.is_bot === true || id === "USLACKBOT",
    deactivated: value.deleted === true,
    fromMessages: false,
    source,
  };
}

function slackSender(
  message: Fields,
  botUsers: Map<string, string>,
): { id: string | null; isBot: boolean } {
  const user = filled(message.user);
  const botId = filled(message.bot_id);
  const isBot = botId !== null || message.subtype === "bot_message";
  if (user) return { id: user, isBot };
  if (botId) return { id: botUsers.get(botId) ?? botId, isBot: true };
  // A notice or a legacy integration's message that names nobody.
  return { id: null, isBot };
}

/** Someone the messages name who is not in users.json: named from what the message carries. */
function placeholderPerson(id: string, message: Fields, source: SourceLocation): PersonRecord {
  const profile = object(message.user_profile);
  const botProfile = object(message.bot_profile);
  const isBot = id.startsWith("B") || message.subtype === "bot_message";
  const realName = filled(profile.real_name) ?? filled(botProfile.name);
  const username = filled(profile.name) ?? filled(message.username);
  return {
    type: "person",
    id,
    username,
    displayName: filled(profile.display_name) ?? realName ?? username ?? id,
    realName,
    email: null,
    avatarUrl: filled(profile.image_72) ?? filled(object(botProfile.icons).image_72) ?? null,
    isBot,
    deactivated: false,
    fromMessages: true,
    source,
  };
}
