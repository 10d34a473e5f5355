/**
 * The export readers in Node (issue 24): a generated Slack export of 20,000 people, 2,000
 * channels and 2,000,000 messages (15 % replies, 10 % with reactions) read by the Slack
 * reader into the community summary; and one large DiscordChatExporter file streamed by the
 * Discord reader. Each reading runs in a process of its own (export-readers-child.ts), so its
 * peak heap is its own, next to baselines measured in the same run.
 *
 * The exports are written to the system's temporary folder once and reused
 * (BENCH_REGENERATE=1 writes them again). BENCH_SLACK_MESSAGES and BENCH_DISCORD_MESSAGES
 * set smaller sizes for a quick look.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchSlackExport, writeSlackExport } from "./slack-export";
import { machine, runBenchChild, today } from "./support";

type Reading = {
  seconds: number;
  peakHeapMb: number;
  peakRssMb: number;
  uncompressedBytes?: number;
  items?: number;
  messages?: number;
  people?: number;
  channels?: number;
  replies?: number;
  withReactions?: number;
  problems?: number;
};

const child = path.join(import.meta.dirname, "export-readers-child.ts");
const read = (file: string, mode: string) =>
  runBenchChild<Reading>(child, { BENCH_EXPORT: file, BENCH_MODE: mode });
const mb = (bytes: number) => (bytes / 2 ** 20).toLocaleString("en", { maximumFractionDigits: 0 });
const fixed = (value: number, digits = 1) =>
  value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export async function benchSlackReader(): Promise<string> {
  const size = {
    ...benchSlackExport,
    messages: Number(process.env.BENCH_SLACK_MESSAGES ?? benchSlackExport.messages),
  };
  const file = path.join(os.tmpdir(), `switchboard-bench-slack-${size.messages}.zip`);
  let generated = "";
  if (!fs.existsSync(file) || process.env.BENCH_REGENERATE) {
    const started = performance.now();
    const written = writeSlackExport(`${file}.part`, size);
    fs.renameSync(`${file}.part`, file);
    generated = ` Generated in ${fixed((performance.now() - started) / 1000)} s: ${written.entries.toLocaleString("en")} entries, ${written.replies.toLocaleString("en")} replies, ${written.withReactions.toLocaleString("en")} messages with reactions.`;
  }
  const load = os.loadavg()[0]!.toFixed(1);
  const inflate = await read(file, "inflate");
  const parse = await read(file, "parse");
  const reader = await read(file, "read");
  if (reader.messages !== size.messages)
    throw new Error(`The Slack reader read ${reader.messages} messages, not ${size.messages}.`);
  const zipBytes = fs.statSync(file).size;
  const text = inflate.uncompressedBytes!;
  const row = (what: string, reading: Reading) =>
    `| ${what} | ${fixed(reading.seconds)} | ${fixed(reading.seconds / inflate.seconds, 2)} | ${fixed(text / 2 ** 20 / reading.seconds, 0)} | ${reading.messages ? Math.round(reading.messages / reading.seconds).toLocaleString("en") : "–"} | ${fixed(reading.peakHeapMb, 0)} | ${fixed(reading.peakRssMb, 0)} |`;
  return [
    `Slack reader in Node (${today()}, ${machine()}; load average ${load} at the start). A generated export of ${size.people.toLocaleString("en")} people, ${size.channels.toLocaleString("en")} channels and ${size.messages.toLocaleString("en")} messages (${reader.replies!.toLocaleString("en")} replies, ${reader.withReactions!.toLocaleString("en")} with reactions): ${mb(zipBytes)} MB zipped, ${mb(text)} MB of JSON.${generated} Each row is a process of its own; "× inflate" is its time over decompressing alone, in the same run.`,
    "",
    "| reading | time (s) | × inflate | JSON MB/s | messages/s | peak heap (MB) | peak RSS (MB) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    row("decompress every entry (fflate, CRC checked)", inflate),
    row("… and JSON.parse each day file whole", parse),
    row(
      `**Slack reader → summary** (${reader.people!.toLocaleString("en")} people, ${reader.channels!.toLocaleString("en")} channels, ${reader.problems} problems)`,
      reader,
    ),
  ].join("\n");
}

export async function benchDiscordReader(): Promise<string> {
  const messages = Number(process.env.BENCH_DISCORD_MESSAGES ?? 200_000);
  const file = path.join(os.tmpdir(), `switchboard-bench-discord-${messages}.json`);
  if (!fs.existsSync(file) || process.env.BENCH_REGENERATE) {
    writeDiscordChannel(`${file}.part`, messages);
    fs.renameSync(`${file}.part`, file);
  }
  const load = os.loadavg()[0]!.toFixed(1);
  const whole = await read(file, "parse-whole");
  const reader = await read(file, "read");
  if (reader.messages !== messages || whole.messages !== messages)
    throw new Error(`Read ${reader.messages} and ${whole.messages} messages, not ${messages}.`);
  const bytes = fs.statSync(file).size;
  const row = (what: string, reading: Reading) =>
    `| ${what} | ${fixed(reading.seconds)} | ${fixed(reading.seconds / whole.seconds, 2)} | ${fixed(bytes / 2 ** 20 / reading.seconds, 0)} | ${fixed(reading.peakHeapMb, 0)} | ${fixed(reading.peakRssMb, 0)} |`;
  return [
    `Discord reader in Node (${today()}, ${machine()}; load average ${load} at the start). One generated DiscordChatExporter channel file of ${messages.toLocaleString("en")} messages, ${mb(bytes)} MB. "× whole" is the time over reading the file into one string and JSON.parse'ing it, in the same run.`,
    "",
    "| reading | time (s) | × whole | MB/s | peak heap (MB) | peak RSS (MB) |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    row("whole file → one string → JSON.parse", whole),
    row("**Discord reader → summary** (streamed, item by item)", reader),
  ].join("\n");
}

/** One channel as DiscordChatExporter's JSON writes it (indented, full author objects). */
function writeDiscordChannel(file: string, count: number): void {
  const fd = fs.openSync(file, "w");
  const epoch = 1420070400000;
  const start = Date.parse("2023-01-01T00:00:00Z");
  const user = (at: number) => ({
    id: String(1_000_000_000_000_000_000n + BigInt(at)),
    name: `member${at}`,
    discriminator: "0000",
    nickname: `Member ${at}`,
    color: null,
    isBot: at === 0,
    avatarUrl: `https://cdn.discordapp.com/avatars/${at}/a.png?size=512`,
  });
  const id = (ms: number, at: number) => String((BigInt(ms - epoch) << 22n) + BigInt(at % 4096));
  fs.writeSync(
    fd,
    `{\n  "guild": {"id": "1090000000000000000", "name": "Bench Guild", "iconUrl": null},\n  "channel": {"id": "1100000000000000099", "type": "GuildTextChat", "categoryId": null, "category": "Text Channels", "name": "general", "topic": null},\n  "dateRange": {"after": null, "before": null},\n  "exportedAt": "2024-01-01T00:00:00+00:00",\n  "messages": [\n`,
  );
  for (let at = 0; at < count; at++) {
    const ms = start + at * 30_000;
    const reply = at % 7 === 6;
    const message = {
      id: id(ms, at),
      type: reply ? "Reply" : "Default",
      timestamp: new Date(ms).toISOString().replace("Z", "+00:00"),
      timestampEdited: at % 40 === 0 ? new Date(ms + 60_000).toISOString() : null,
      callEndedTimestamp: null,
      isPinned: false,
      content: `message ${at}: can we sync on the release notes after lunch? "quoted" ✓ café`,
      author: { ...user(at % 500), roles: [{ id: "9", name: "Member", color: null, position: 1 }] },
      attachments: [],
      embeds: [],
      stickers: [],
      reactions:
        at % 10 === 0
          ? [
              {
                emoji: { id: "", name: "👍", code: "thumbsup", isAnimated: false, imageUrl: "x" },
                count: 2,
                users: [user(1), user(2)],
              },
            ]
          : [],
      mentions: [],
      ...(reply
        ? {
            reference: {
              type: "Default",
              messageId: id(ms - 30_000, at - 1),
              channelId: "1100000000000000099",
              guildId: "1090000000000000000",
            },
          }
        : {}),
      inlineEmojis: [],
    };
    const text = JSON.stringify(message, null, 2).replace(/^/gm, "    ");
    fs.writeSync(fd, `${text}${at < count - 1 ? "," : ""}\n`);
  }
  fs.writeSync(fd, `  ],\n  "messageCount": ${count}\n}\n`);
  fs.closeSync(fd);
}
