import type { OpenedExport } from "../detect";
import { EntryError, entryLines } from "../entries";
import { MAX_ITEM_CHARS } from "../limits";
import { ChannelMessageIds } from "../message-ids";
import { problem, repeatedId, unreadableItem } from "../problems";
import {
  describeLocation,
  type ChannelRecord,
  type ExportRecord,
  type MessageRecord,
  type NoticeKind,
  type PersonRecord,
  type Reaction,
  type SourceLocation,
} from "../types";
import { filled, isObject, list, number, object, strings, unique, type Fields } from "../values";

/**
 * A Mattermost bulk export (`mmctl export create`): one JSONL file (alone, or in the export's
 * ZIP with the attachments under data/), one object per line, in the format's order: version,
 * teams, channels, users (with their team and channel memberships), bots, posts (each with
 * its replies and reactions), direct channels, direct posts.
 *
 * The format has no ids: people are their usernames, channels `team/name`, a direct channel
 * its members' usernames, and a post `create_at-username` within its channel (what Mattermost
 * itself tells posts apart by). Those ids are stable from one export to the next.
 */

const notices: Record<string, NoticeKind> = {
  system_join_channel: "join",
  system_join_team: "join",
  system_add_to_channel: "join",
  system_add_to_team: "join",
  system_leave_channel: "leave",
  system_leave_team: "leave",
  system_remove_from_channel: "leave",
  system_remove_from_team: "leave",
  system_header_change: "topic",
  system_purpose_change: "purpose",
  system_displayname_change: "rename",
  system_channel_deleted: "archive",
  system_channel_restored: "unarchive",
};

const MENTION = /@([a-z0-9][a-z0-9._-]*)/gi;

type Channel = { record: ChannelRecord; members: Set<string>; ids: ChannelMessageIds };

export async function* readMattermostExport(opened: OpenedExport): AsyncGenerator<ExportRecord> {
  const entry =
    opened.entries.find((candidate) => candidate.path.toLowerCase().endsWith(".jsonl")) ??
    opened.entries[0]!;
  const folder = entry.path.slice(0, entry.path.lastIndexOf("/") + 1);
  const attachments = new Map(
    opened.entries.filter((other) => other !== entry).map((other) => [other.path, other.size]),
  );
  const teams: string[] = [];
  let started = false;
  const channels = new Map<string, Channel>();
  const people = new Map<string, { displayName: string; isBot: boolean }>();
  const unknownSenders = new Set<string>();
  const unknownChannels = new Map<string, { count: number; first: SourceLocation }>();
  let channelsOut = false;

  /** Channels and their members, once every user line (which holds the memberships) is read. */
  function* flushChannels(): Generator<ExportRecord> {
    if (channelsOut) return;
    channelsOut = true;
    for (const { record, members } of channels.values()) {
      yield record;
      yield {
        type: "members",
        channelId: record.id,
        userIds: [...members],
        listed: true,
        source: record.source,
      };
    }
  }

  function* sender(username: string | null, source: SourceLocation): Generator<ExportRecord> {
    if (!username || people.has(username)) return;
    people.set(username, { displayName: username, isBot: false });
    if (!unknownSenders.has(username)) {
      unknownSenders.add(username);
      yield problem(
        "unknown-person",
        `${describeLocation(source)} is from ${username}, who has no user line in the export: a person is made for them from the username.`,
        source,
      );
    }
    yield placeholder(username, source);
  }

  function* directChannel(
    members: string[],
    source: SourceLocation,
    header: string | null,
  ): Generator<ExportRecord, Channel> {
    const sorted = unique(members).sort();
    const id = `direct:${sorted.join(",")}`;
    const existing = channels.get(id);
    if (existing) return existing;
    const record: ChannelRecord = {
      type: "channel",
      id,
      kind: sorted.length > 2 ? "group_dm" : "dm",
      name: sorted.map((member) => people.get(member)?.displayName ?? member).join(", "),
      topic: header,
      purpose: null,
      createdAt: null,
      creatorId: null,
      archived: false,
      parentChannelId: null,
      source,
    };
    const channel = {
      record,
      members: new Set(sorted),
      ids: new ChannelMessageIds(`the conversation of ${sorted.join(", ")}`),
    };
    channels.set(id, channel);
    yield record;
    yield { type: "members", channelId: id, userIds: sorted, listed: true, source };
    return channel;
  }

  function* post(
    fields: Fields,
    channel: Channel,
    source: SourceLocation,
  ): Generator<ExportRecord> {
    const replies = list(fields.replies);
    const root = channel.ids.admit(
      mattermostMessage(fields, channel, null, source, people, attachments, folder),
      source,
    );
    if (root.type === "problem") {
      // Its replies go with it.
      yield { ...root, skipped: 1 + replies.length };
      return;
    }
    yield* sender(root.senderId, source);
    yield root;
    for (const reply of replies) {
      const parsed = isObject(reply)
        ? mattermostMessage(reply, channel, root.id, source, people, attachments, folder)
        : "is not a JSON object";
      const message = channel.ids.admit(
        typeof parsed === "string" ? `has a reply that ${parsed}` : parsed,
        source,
      );
      if (message.type === "message") yield* sender(message.senderId, source);
      yield message;
    }
  }

  try {
    for await (const { text, line } of entryLines(entry)) {
      const source = { path: entry.path, line };
      if (text.trim() === "") continue;
      let value: unknown;
      try {
        if (text.length > MAX_ITEM_CHARS)
          throw new Error("it is longer than a line the export writes");
        value = JSON.parse(text);
      } catch (error) {
        yield unreadableItem(
          source,
          `is not valid JSON (${error instanceof Error ? error.message : "parse error"})`,
        );
        continue;
      }
      const fields = object(value);
      const type = filled(fields.type);
      const data = object(type ? fields[type] : null);
      if (
        !started &&
        type !== "version" &&
        type !== "team" &&
        type !== "scheme" &&
        type !== "emoji" &&
        type !== "role"
      ) {
        started = true;
        yield {
          type: "export",
          format: "mattermost",
          name: teams.join(", ") || opened.name.replace(/\.(zip|jsonl)$/i, ""),
          source: { path: entry.path },
        };
      }
      switch (type) {
        case "team": {
          const name = filled(data.display_name) ?? filled(data.name);
          if (name) teams.push(name);
          break;
        }
        case "channel": {
          const team = filled(data.team);
          const name = filled(data.name);
          if (!team || !name) {
            yield unreadableItem(source, "is a channel without a team and a name");
            break;
          }
          const id = `${team}/${name}`;
          if (channels.has(id)) {
            yield repeatedId(source, `channel ${id}`);
            break;
          }
          const deletedAt = number(data.deleted_at) ?? 0;
          channels.set(id, {
            record: {
              type: "channel",
              id,
              kind: data.type === "P" ? "private" : "public",
              name: filled(data.display_name) ?? name,
              topic: filled(data.header),
              purpose: filled(data.purpose),
              createdAt: null,
              creatorId: null,
              archived: deletedAt > 0,
              parentChannelId: null,
              source,
            },
            members: new Set(),
            ids: new ChannelMessageIds(`~${name}`),
          });
          break;
        }
        case "user":
        case "bot": {
          const username = filled(data.username);
          if (!username) {
            yield unreadableItem(source, `is a ${type} without a username`);
            break;
          }
          if (people.has(username)) {
            yield repeatedId(source, `person ${username}`);
            break;
          }
          const record = mattermostPerson(data, username, type === "bot", source);
          people.set(username, { displayName: record.displayName, isBot: record.isBot });
          yield record;
          for (const team of list(data.teams).filter(isObject)) {
            const teamName = filled(team.name);
            for (const membership of list(team.channels).filter(isObject)) {
              const channel = channels.get(`${teamName}/${filled(membership.name)}`);
              if (channel) channel.members.add(username);
            }
          }
          break;
        }
        case "direct_channel": {
          yield* flushChannels();
          const members =
            strings(data.members).length > 0
              ? strings(data.members)
              : list(data.participants)
                  .map((participant) => filled(object(participant).username))
                  .filter((member) => member !== null);
          if (members.length === 0) {
            yield unreadableItem(source, "is a direct channel without members");
            break;
          }
          yield* directChannel(members, source, filled(data.header));
          break;
        }
        case "post": {
          yield* flushChannels();
          const id = `${filled(data.team)}/${filled(data.channel)}`;
          const channel = channels.get(id);
          if (!channel) {
            const unknown = unknownChannels.get(id);
            if (unknown) unknown.count += 1 + list(data.replies).length;
            else unknownChannels.set(id, { count: 1 + list(data.replies).length, first: source });
            break;
          }
          yield* post(data, channel, source);
          break;
        }
        case "direct_post": {
          yield* flushChannels();
          const members = strings(data.channel_members);
          if (members.length === 0) {
            yield unreadableItem(
              source,
              `is a direct post without channel members`,
              1 + list(data.replies).length,
            );
            break;
          }
          const channel = yield* directChannel(members, source, null);
          yield* post(data, channel, source);
          break;
        }
        case "version":
        case "scheme":
        case "emoji":
        case "role":
          break;
        default:
          yield unreadableItem(
            source,
            `is of a type the console does not read (${type ?? "no type"})`,
          );
      }
    }
  } catch (error) {
    if (!(error instanceof EntryError)) throw error;
    yield problem("unreadable-file", `${error.message} The lines after the damage are left out.`, {
      path: entry.path,
    });
  }
  if (!started)
    yield {
      type: "export",
      format: "mattermost",
      name: teams.join(", ") || opened.name,
      source: { path: entry.path },
    };
  yield* flushChannels();
  for (const [id, { count, first }] of unknownChannels)
    yield problem(
      "unknown-channel",
      `${count === 1 ? "1 message" : `${count.toLocaleString("en-US")} messages`} (the first: ${describeLocation(first)}) belong to channel ${id}, which has no channel line in the export: they are left out.`,
      first,
      count,
    );
}

function mattermostPerson(
  data: Fields,
  username: string,
  isBot: boolean,
  source: SourceLocation,
): PersonRecord {
  const realName =
    [filled(data.first_name), filled(data.last_name)].filter(Boolean).join(" ") || null;
  return {
    type: "person",
    id: username,
    username,
    displayName: filled(data.nickname) ?? filled(data.display_name) ?? realName ?? username,
    realName,
    email: filled(data.email),
    avatarUrl: null,
    isBot,
    deactivated: (number(data.delete_at) ?? 0) > 0,
    fromMessages: false,
    source,
  };
}

function placeholder(username: string, source: SourceLocation): PersonRecord {
  return {
    type: "person",
    id: username,
    username,
    displayName: username,
    realName: null,
    email: null,
    avatarUrl: null,
    isBot: false,
    deactivated: false,
    fromMessages: true,
    source,
  };
}

function mattermostMessage(
  data: Fields,
  channel: Channel,
  rootId: string | null,
  source: SourceLocation,
  people: Map<string, { isBot: boolean }>,
  attachments: Map<string, number>,
  folder: string,
): MessageRecord | string {
  const user = filled(data.user);
  const createdAt = number(data.create_at);
  if (!user) return 'has no "user"';
  if (createdAt === null) return 'has no "create_at"';
  const text = typeof data.message === "string" ? data.message : "";
  const type = filled(data.type);
  const editAt = number(data.edit_at) ?? 0;
  const reactions = new Map<string, Reaction>();
  for (const reaction of list(data.reactions).filter(isObject)) {
    const name = filled(reaction.emoji_name);
    const by = filled(reaction.user);
    if (!name || !by) continue;
    const entry = reactions.get(name) ?? { name, emojiId: null, userIds: [], count: 0 };
    if (entry.userIds.includes(by)) continue;
    entry.userIds.push(by);
    entry.count++;
    reactions.set(name, entry);
  }
  const notice = type?.startsWith("system_") ? (notices[type] ?? "other") : null;
  return {
    type: "message",
    channelId: channel.record.id,
    id: `${createdAt}-${user}`,
    senderId: user,
    createdAt,
    text,
    subtype: type,
    notice,
    parentId: rootId,
    threadRootId: rootId,
    alsoInChannel: false,
    reactions: [...reactions.values()],
    files: list(data.attachments)
      .filter(isObject)
      .flatMap((attachment) => {
        const path = filled(attachment.path);
        if (!path) return [];
        return [
          {
            id: null,
            name: path.slice(path.lastIndexOf("/") + 1),
            mimeType: null,
            size:
              attachments.get(`${folder}${path}`) ??
              attachments.get(`${folder}data/${path}`) ??
              null,
            url: null,
            state: "available" as const,
          },
        ];
      }),
    mentionIds:
      notice === null
        ? unique(
            Array.from(text.matchAll(MENTION), (match) =>
              match[1]!.toLowerCase().replace(/\.$/, ""),
            ),
          ).filter((name) => people.has(name))
        : [],
    edited: editAt > 0,
    editedAt: editAt > 0 ? editAt : null,
    isBot: people.get(user)?.isBot === true || object(data.props).from_bot === "true",
    source,
  };
}
