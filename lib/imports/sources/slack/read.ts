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

export async function* readSlackExport(opened: OpenedExport): AsyncGenerator<ExportRecord> {
  const { root, entries } = opened;
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  yield {
    type: "export",
    format: "slack",
    name: opened.name.replace(/\.zip$/i, ""),
    source: { path: opened.name },
  };

  // People: users.json (org_users.json in an Enterprise Grid export).
  const people = new Map<string, Person>();
  const botUsers = new Map<string, string>();
  const usersEntry = byPath.get(`${root}users.json`) ?? byPath.get(`${root}org_users.json`);
  if (usersEntry) {
    for await (const record of readList(usersEntry, "people", "users")) {
      if ("problem" in record) {
        yield record.problem;
        continue;
      }
      const { value, source } = record;
      const person = slackPerson(value, source);
      if (typeof person === "string") {
        yield unreadableItem(source, person);
      } else if (people.has(person.id)) {
        yield repeatedId(source, `person ${person.id}`);
      } else {
        people.set(person.id, { displayName: person.displayName, isBot: person.isBot });
        const botId = filled(object(object(value).profile).bot_id);
        if (botId) botUsers.set(botId, person.id);
        yield person;
      }
    }
  }

  // Conversations, and which folder holds each one's day files.
  const channels: Array<{ record: ChannelRecord; folder: string }> = [];
  const channelIds = new Set<string>();
  const folders = new Map<string, number>();
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
      if (channelIds.has(id)) {
        yield repeatedId(source, `conversation ${id}`);
        continue;
      }
      channelIds.add(id);
      const memberIds = strings(value.members);
      const name =
        filled(value.name) ??
        memberIds.map((member) => people.get(member)?.displayName ?? member).join(", ");
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
      const known = memberIds.filter((member) => people.has(member));
      const unknown = memberIds.filter((member) => !people.has(member));
      if (unknown.length > 0)
        yield problem(
          "unknown-person",
          `${describeLocation(source)} lists ${unknown.length === 1 ? "a member" : `${unknown.length} members`} of ${channelLabel(channel)} missing from users.json (${unknown.slice(0, 3).join(", ")}${unknown.length > 3 ? ", …" : ""}): they are left out of its members.`,
          source,
        );
      yield { type: "members", channelId: id, userIds: known, listed: true, source };
      const folder = filled(value.name) ?? id;
      folders.set(folder, channels.length);
      if (!folders.has(id)) folders.set(id, channels.length);
      channels.push({ record: channel, folder });
    }
  }

  // Day files, by conversation, oldest first.
  const days = new Map<number, ExportEntry[]>();
  const strays = new Map<string, number>();
  for (const entry of entries) {
    const match = entry.path.startsWith(root) ? DAY_FILE.exec(entry.path.slice(root.length)) : null;
    if (!match) continue;
    const at = folders.get(match[1]!);
    if (at === undefined) strays.set(match[1]!, (strays.get(match[1]!) ?? 0) + 1);
    else if (days.has(at)) days.get(at)!.push(entry);
    else days.set(at, [entry]);
  }
  for (const [folder, files] of strays)
    yield problem(
      "unknown-channel",
      `The folder ${root}${folder}/ holds ${files === 1 ? "a day file" : `${files} day files`} of a conversation that is in none of channels.json, groups.json, mpims.json and dms.json, so it cannot be placed: its messages are left out.`,
      { path: `${root}${folder}/` },
    );

  const unknownSenders = new Set<string>();
  for (const [at, { record: channel }] of channels.entries()) {
    const files = (days.get(at) ?? []).sort((a, b) => (a.path < b.path ? -1 : 1));
    const ids = new ChannelMessageIds(channelLabel(channel));
    for (const entry of files) {
      const pending: ExportRecord[] = [];
      const sender = (message: Fields, source: SourceLocation) => {
        const found = slackSender(message, people, botUsers);
        if (found.id && !people.has(found.id)) {
          const placeholder = placeholderPerson(found.id, message, source);
          people.set(found.id, { displayName: placeholder.displayName, isBot: placeholder.isBot });
          if (!placeholder.isBot && !unknownSenders.has(found.id)) {
            unknownSenders.add(found.id);
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
        return {
          id: found.id,
          isBot: found.isBot || (found.id ? people.get(found.id)!.isBot : false),
        };
      };
      try {
        for await (const { value, item } of jsonItems(entry)) {
          const source = { path: entry.path, item };
          const message = slackMessage(value, channel.id, source, (fields) =>
            sender(fields, source),
          );
          yield* pending.splice(0);
          const admitted = ids.admit(message, source);
          yield admitted;
        }
      } catch (error) {
        if (!(error instanceof EntryError)) throw error;
        yield* pending.splice(0);
        yield unreadableFile(error, entry.path, "its messages");
      }
    }
    yield* ids.missingRoots();
  }
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
  people: Map<string, Person>,
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
