import fs from "node:fs";
import { strToU8, Zip, ZipDeflate } from "fflate";

/**
 * A large Slack workspace export for the benchmarks, written straight to disk as a ZIP:
 * users.json, channels.json, groups.json and one day file per channel per active day, each
 * message shaped as Slack writes it (user_profile, blocks, client_msg_id…). Deterministic for
 * a given size. Nothing is held but the day file being written.
 *
 * fflate's streaming Zip writes no ZIP64, so the export is kept under 65,535 entries (about
 * 60 messages a day file) and 4 GiB, which a real export of this size also fits in.
 */

export type SlackExportSize = {
  people: number;
  channels: number;
  messages: number;
  /** Shares of messages: replies to an earlier message of the channel, and with reactions. */
  replies: number;
  reactions: number;
};

export const benchSlackExport: SlackExportSize = {
  people: 20_000,
  channels: 2_000,
  messages: 2_000_000,
  replies: 0.15,
  reactions: 0.1,
};

export type WrittenExport = {
  path: string;
  bytes: number;
  entries: number;
  messages: number;
  replies: number;
  withReactions: number;
};

const TEAM = "T0BENCH01";
const DAY = 86_400;
const START = 1_640_995_200; // 2022-01-01
const WORDS =
  "the a deploy review meeting today tomorrow please thanks ship it looks good can we sync on this after lunch build failed again fixed now merged roadmap customer call notes draft quick question update docs release plan bug ticket standup retro coffee 🎉 ✅ café naïve".split(
    " ",
  );
const EMOJI = [
  "+1",
  "heart",
  "eyes",
  "tada",
  "white_check_mark",
  "joy",
  "partyparrot",
  "+1::skin-tone-3",
];

/** mulberry32: a small, fast, seeded generator. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const userId = (at: number) => `U${(1_000_000 + at).toString(36).toUpperCase().padStart(8, "0")}`;
const channelId = (at: number, isPrivate: boolean) =>
  `${isPrivate ? "G" : "C"}${(2_000_000 + at).toString(36).toUpperCase().padStart(8, "0")}`;
const channelName = (at: number) => `channel-${String(at).padStart(4, "0")}`;

export function writeSlackExport(
  path: string,
  size: SlackExportSize = benchSlackExport,
): WrittenExport {
  const next = random(size.messages ^ size.people);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const fd = fs.openSync(path, "w");
  let bytes = 0;
  let entries = 0;
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else {
      fs.writeSync(fd, chunk);
      bytes += chunk.length;
    }
  });
  const add = (name: string, text: string) => {
    const entry = new ZipDeflate(name, { level: 6 });
    zip.add(entry);
    entry.push(strToU8(text), true);
    entries++;
    if (failure) throw failure;
  };

  // People: 1 % bots, 5 % deactivated.
  const users: string[] = [];
  for (let at = 0; at < size.people; at++) {
    const id = userId(at);
    const isBot = at % 100 === 99;
    users.push(
      JSON.stringify({
        id,
        team_id: TEAM,
        name: `person${at}`,
        deleted: at % 20 === 7,
        color: "9f69e7",
        real_name: `Person ${at}`,
        tz: "Europe/London",
        tz_label: "Greenwich Mean Time",
        tz_offset: 0,
        profile: {
          title: "",
          phone: "",
          real_name: `Person ${at}`,
          real_name_normalized: `Person ${at}`,
          display_name: `person${at}`,
          display_name_normalized: `person${at}`,
          avatar_hash: `g${at.toString(16)}`,
          email: isBot ? undefined : `person${at}@example.com`,
          image_72: `https://avatars.slack-edge.com/2022-01-01/${id}_72.png`,
          image_512: `https://avatars.slack-edge.com/2022-01-01/${id}_512.png`,
          ...(isBot ? { bot_id: `B${id.slice(1)}` } : {}),
          team: TEAM,
        },
        is_admin: at === 0,
        is_bot: isBot,
        is_app_user: false,
        updated: START,
      }),
    );
  }
  add("users.json", `[${users.join(",\n")}]`);
  users.length = 0;

  // Channels: 15 % private; #channel-0000 has everyone, the rest 20 to 2,000 members.
  const share = Array.from({ length: size.channels }, (_, at) => 1 / (at + 10));
  const total = share.reduce((sum, value) => sum + value, 0);
  const counts = share.map((value) => Math.max(1, Math.floor((value / total) * size.messages)));
  counts[0]! += size.messages - counts.reduce((sum, value) => sum + value, 0);
  const lists: Record<"channels" | "groups", string[]> = { channels: [], groups: [] };
  const members: number[][] = [];
  for (let at = 0; at < size.channels; at++) {
    const isPrivate = at % 7 === 3;
    const count = at === 0 ? size.people : 20 + Math.floor(next() * 1980);
    const start = Math.floor(next() * size.people);
    const ids = Array.from(
      { length: Math.min(count, size.people) },
      (_, k) => (start + k) % size.people,
    );
    members.push(ids);
    (isPrivate ? lists.groups : lists.channels).push(
      JSON.stringify({
        id: channelId(at, isPrivate),
        name: channelName(at),
        created: START,
        creator: userId(ids[0]!),
        is_archived: at % 50 === 49,
        is_general: at === 0,
        members: ids.map(userId),
        topic: { value: "", creator: "", last_set: 0 },
        purpose: { value: `Channel number ${at}`, creator: userId(ids[0]!), last_set: START },
      }),
    );
  }
  add("channels.json", `[${lists.channels.join(",\n")}]`);
  add("groups.json", `[${lists.groups.join(",\n")}]`);

  // Day files: about 60 messages each, over up to two years.
  let written = 0;
  let replies = 0;
  let withReactions = 0;
  for (let at = 0; at < size.channels; at++) {
    const ids = members[at]!;
    const days = Math.min(730, Math.max(1, Math.ceil(counts[at]! / 60)));
    const perDay = counts[at]! / days;
    const roots: string[] = [];
    let left = counts[at]!;
    for (let day = 0; day < days && left > 0; day++) {
      const n =
        day === days - 1
          ? left
          : Math.min(left, Math.round(perDay * (day + 1)) - (counts[at]! - left));
      left -= n;
      const dayStart = START + Math.floor((day * 730) / days) * DAY;
      const messages: string[] = [];
      for (let k = 0; k < n; k++) {
        const ts = `${dayStart + Math.floor((k * DAY) / n)}.${String(100 + k).padStart(6, "0")}`;
        const author = ids[Math.floor(next() * ids.length)]!;
        const text = Array.from({ length: 4 + Math.floor(next() * 24) }, () => pick(WORDS)).join(
          " ",
        );
        const mention = next() < 0.05 ? ` <@${userId(ids[Math.floor(next() * ids.length)]!)}>` : "";
        const isReply = roots.length > 0 && next() < size.replies;
        const message: Record<string, unknown> = {
          client_msg_id: `${(written + k).toString(16).padStart(8, "0")}-bench-4000-8000-000000000000`,
          type: "message",
          text: text + mention,
          user: userId(author),
          ts,
          team: TEAM,
          user_team: TEAM,
          source_team: TEAM,
          user_profile: {
            avatar_hash: `g${author.toString(16)}`,
            image_72: `https://avatars.slack-edge.com/2022-01-01/${userId(author)}_72.png`,
            first_name: "Person",
            real_name: `Person ${author}`,
            display_name: `person${author}`,
            team: TEAM,
            name: `person${author}`,
            is_restricted: false,
            is_ultra_restricted: false,
          },
          blocks: [
            {
              type: "rich_text",
              block_id: ts.slice(-5),
              elements: [{ type: "rich_text_section", elements: [{ type: "text", text }] }],
            },
          ],
        };
        if (isReply) {
          message.thread_ts = roots[Math.floor(next() * roots.length)];
          message.parent_user_id = userId(ids[0]!);
          replies++;
        } else {
          roots.push(ts);
          if (roots.length > 50) roots.shift();
        }
        if (next() < size.reactions) {
          message.reactions = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
            const users = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
              userId(ids[Math.floor(next() * ids.length)]!),
            );
            return { name: pick(EMOJI), users, count: users.length };
          });
          withReactions++;
        }
        if (next() < 0.02)
          message.files = [
            {
              id: `F${(written + k).toString(36).toUpperCase()}`,
              name: "screenshot.png",
              mimetype: "image/png",
              size: 10_000 + Math.floor(next() * 500_000),
              url_private: `https://files.slack.com/files-pri/${TEAM}-F${written + k}/screenshot.png`,
            },
          ];
        messages.push(JSON.stringify(message, null, 4));
      }
      written += n;
      const date = new Date(dayStart * 1000).toISOString().slice(0, 10);
      add(`${channelName(at)}/${date}.json`, `[\n${messages.join(",\n")}\n]`);
    }
  }
  zip.end();
  fs.closeSync(fd);
  if (failure) throw failure;
  return { path, bytes, entries, messages: written, replies, withReactions };
}
