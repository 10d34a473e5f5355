import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import {
  ExportProblem,
  openExport,
  readExport,
  type ExportRecord,
  type ProblemRecord,
} from "@/lib/imports/sources";
import { expected, fixtureFile, fixtureFiles, fixtureZip } from "../fixtures/exports/build";
import { readAllRecords, summaryAsExpected } from "../fixtures/exports/read";

const slackZip = (change: Record<string, string | null> = {}) =>
  fixtureFile(fixtureZip("slack", change), "acme.zip");
const problems = (records: ExportRecord[]) =>
  records.filter((record): record is ProblemRecord => record.type === "problem");
const refusal = async (files: File[]) => {
  try {
    await readAllRecords(files);
  } catch (error) {
    expect(error).toBeInstanceOf(ExportProblem);
    return (error as Error).message;
  }
  throw new Error("the files were read");
};

describe("telling exports apart", () => {
  it.each([
    ["slack", () => [fixtureFile(fixtureZip("slack"), "a.zip")]],
    ["slack", () => [fixtureFile(fixtureZip("slack", {}, "Acme Slack export/"), "a.zip")]],
    ["discord", () => [fixtureFile(fixtureZip("discord"), "a.zip")]],
    [
      "discord",
      () => [fixtureFile(fixtureFiles("discord").values().next().value!, "general.json")],
    ],
    ["mattermost", () => [fixtureFile(fixtureZip("mattermost"), "a.zip")]],
    [
      "mattermost",
      () => [fixtureFile(fixtureFiles("mattermost").get("import.jsonl")!, "export.txt")],
    ],
  ])("finds %s", async (format, files) => {
    expect((await openExport(files())).format).toBe(format);
  });

  it("names a ZIP that is none of them, with what it holds", async () => {
    const zip = zipSync({
      "report.pdf": strToU8("%PDF-1.4"),
      "notes/todo.txt": strToU8("buy milk"),
    });
    expect(await refusal([fixtureFile(zip, "backup.zip")])).toBe(
      "backup.zip is a ZIP archive, but not a Slack workspace export, a Discord export (DiscordChatExporter) or a Mattermost bulk export: it holds report.pdf, notes/todo.txt, and no users.json with channels.json (Slack), no JSON file that starts with a guild and a channel (DiscordChatExporter), and no JSONL file whose first line is a version line (Mattermost).",
    );
  });

  it("names a file that is no export, and points a CSV to the ordinary import", async () => {
    expect(await refusal([fixtureFile("user_id,nickname\nalice,Alice\n", "users.csv")])).toContain(
      "users.csv is not a Slack workspace export, a Discord export (DiscordChatExporter) or a Mattermost bulk export",
    );
    expect(await refusal([fixtureFile("user_id,nickname\n", "users.csv")])).toContain(
      "use New import instead",
    );
  });

  it("refuses an empty file, no file, and a ZIP with other files beside it", async () => {
    expect(await refusal([fixtureFile("", "acme.zip")])).toBe(
      "acme.zip is empty (0 bytes). Export again and choose the new file.",
    );
    expect(await refusal([])).toBe("Choose the export to read.");
    expect(await refusal([slackZip(), fixtureFile("{}", "extra.json")])).toContain(
      "Choose one export at a time",
    );
  });

  it("refuses a corrupt ZIP with a clear message", async () => {
    const zip = fixtureZip("slack");
    expect(await refusal([fixtureFile(zip.subarray(0, zip.length - 100), "acme.zip")])).toMatch(
      /^acme\.zip is a damaged or incomplete ZIP archive: .*Download the export again/,
    );
  });
});

describe("bad input inside an export: named, and the rest stays usable", () => {
  it("a day file with broken JSON: its path and item are named, its messages before the break kept", async () => {
    const day = fixtureFiles("slack").get("general/2024-03-05.json")!;
    // Cut inside the second message: the first stays readable.
    const broken = day.slice(0, day.indexOf('"subtype": "thread_broadcast"') + 20);
    const records = await readAllRecords([slackZip({ "general/2024-03-05.json": broken })]);
    expect(problems(records)).toEqual([
      {
        type: "problem",
        code: "unreadable-file",
        message:
          "general/2024-03-05.json is not valid JSON: the JSON ends in the middle of item 2. Its messages from item 2 on are left out; the rest of the export is read.",
        skipped: 0,
        source: { path: "general/2024-03-05.json", item: 2 },
      },
    ]);
    const { counts } = await summaryAsExpected(records);
    expect(counts.messages).toBe(expected("slack").messages - 2);
    // Everything after that file is read: the last conversation's messages are all there.
    expect(
      records.filter((record) => record.type === "message" && record.channelId === "D01ALICEBOB"),
    ).toHaveLength(2);
  });

  it("a day file that is not UTF-8, and one whose data in the ZIP is damaged", async () => {
    const latin1 = new Uint8Array([
      ...strToU8('[{"type":"message","user":"U02BOB","text":"caf'),
      0xe9,
      ...strToU8('","ts":"1709553900.000100"}]'),
    ]);
    const files = Object.fromEntries(
      [...fixtureFiles("slack")].map(([path, text]) => [path, strToU8(text)]),
    );
    files["random/2024-03-05.json"] = latin1;
    const records = await readAllRecords([fixtureFile(zipSync(files), "acme.zip")]);
    expect(problems(records).map((problem) => [problem.code, problem.message])).toEqual([
      [
        "unreadable-file",
        "random/2024-03-05.json is not UTF-8 text: it holds bytes that are not UTF-8, so it is not a file the export tool wrote. Export again, or restore the file. Its messages are left out; the rest of the export is read.",
      ],
    ]);

    const zip = fixtureZip("slack", {}, "");
    const at = findEntryData(zip, "leads/2024-03-06.json");
    for (let offset = at; offset < at + 40; offset++) zip[offset] = zip[offset]! ^ 0x33;
    const damaged = problems(await readAllRecords([fixtureFile(zip, "acme.zip")]));
    expect(damaged).toHaveLength(1);
    expect(damaged[0]!.message).toMatch(
      /^leads\/2024-03-06\.json cannot be read from the ZIP: its (compressed data is damaged|checksum does not match)/,
    );
  });

  it("a message from someone missing from users.json: a person is made from the message, and said so", async () => {
    const day = JSON.parse(fixtureFiles("slack").get("random/2024-03-04.json")!) as unknown[];
    day.push({
      type: "message",
      text: "hello from the partner workspace",
      user: "U09GINA",
      ts: "1709557200.000300",
      user_profile: {
        real_name: "Gina Gomez",
        display_name: "gina",
        name: "gina.gomez",
        image_72: "https://avatars.slack-edge.com/gina_72.png",
      },
    });
    const records = await readAllRecords([
      slackZip({ "random/2024-03-04.json": JSON.stringify(day) }),
    ]);
    expect(problems(records)).toEqual([
      expect.objectContaining({
        code: "unknown-person",
        message:
          "random/2024-03-04.json, item 4 is from U09GINA, who is not in users.json (a deleted account, or a guest of a shared channel): a person is made for them from what their messages say (gina).",
      }),
    ]);
    const at = records.findIndex((record) => record.type === "person" && record.id === "U09GINA");
    expect(records[at]).toMatchObject({
      displayName: "gina",
      realName: "Gina Gomez",
      fromMessages: true,
      isBot: false,
    });
    expect(records[at + 1]).toMatchObject({ type: "message", senderId: "U09GINA" });
    const { summary } = await summaryAsExpected(records);
    expect(summary.people.fromMessages).toBe(1);
    expect(summary.messages.total).toBe(expected("slack").messages + 1);
  });

  it("duplicate ids: a repeated message, person and conversation are left out, each named", async () => {
    const files = fixtureFiles("slack");
    const day = JSON.parse(files.get("random/2024-03-04.json")!) as unknown[];
    const users = JSON.parse(files.get("users.json")!) as unknown[];
    const groups = JSON.parse(files.get("groups.json")!) as unknown[];
    const records = await readAllRecords([
      slackZip({
        "random/2024-03-04.json": JSON.stringify([...day, day[1]]),
        "users.json": JSON.stringify([...users, users[1]]),
        "groups.json": JSON.stringify([...groups, groups[0]]),
      }),
    ]);
    expect(problems(records).map((problem) => problem.message)).toEqual([
      "users.json, item 108 repeats person U02BOB, which was already read: the repeat is left out.",
      "groups.json, item 2 repeats conversation G01LEADS, which was already read: the repeat is left out.",
      "random/2024-03-04.json, item 4 repeats message 1709553600.000100 of #random, which was already read: the repeat is left out.",
    ]);
    const { counts } = await summaryAsExpected(records);
    expect(counts).toEqual(expected("slack"));
  });

  it("a conversation folder in no list, and a reply whose root is not in the export", async () => {
    const day = JSON.parse(fixtureFiles("slack").get("random/2024-03-04.json")!) as unknown[];
    const records = await readAllRecords([
      slackZip({
        "random/2024-03-04.json": JSON.stringify(day.filter((_, at) => at !== 1)),
        "design/2024-03-04.json": "[]",
      }),
    ]);
    expect(problems(records).map((problem) => [problem.code, problem.message])).toEqual([
      [
        "unknown-channel",
        "The folder design/ holds a day file of a conversation that is in none of channels.json, groups.json, mpims.json and dms.json, so it cannot be placed: its messages are left out.",
      ],
      [
        "missing-root",
        "1 reply in #random (the first: random/2024-03-04.json, item 2) answer message 1709553600.000100, which is not in the export (deleted, or before the export's date range). They are kept, without their root.",
      ],
    ]);
  });

  it("Mattermost: a broken line, a post in a channel the export does not have, and a user repeated", async () => {
    const lines = fixtureFiles("mattermost").get("import.jsonl")!.trimEnd().split("\n");
    const bob = lines.find((line) => line.includes('"username":"bob"'))!;
    const post = lines.findIndex((line) => line.includes('"type":"post"'));
    lines.splice(post, 0, '{"type":"post","post":{"team":"acme","channel":"town-squ', bob);
    lines.push(
      '{"type":"post","post":{"team":"acme","channel":"design","user":"alice","message":"hi","create_at":1709900000000}}',
    );
    const records = await readAllRecords([fixtureFile(`${lines.join("\n")}\n`, "export.jsonl")]);
    expect(problems(records).map((problem) => [problem.code, problem.skipped])).toEqual([
      ["unreadable-item", 1],
      ["duplicate-id", 1],
      ["unknown-channel", 1],
    ]);
    expect(problems(records)[0]!.message).toMatch(/^export\.jsonl, line 113 is not valid JSON \(/);
    expect((await summaryAsExpected(records)).counts).toEqual(expected("mattermost"));
  });

  it("Discord: a JSON file that is not from DiscordChatExporter is left out and named", async () => {
    const files = [...fixtureFiles("discord")].map(([name, text]) => fixtureFile(text, name));
    const records = await readAllRecords([
      ...files,
      fixtureFile('{"name": "settings"}', "settings.json"),
    ]);
    expect(problems(records)).toEqual([
      expect.objectContaining({
        code: "ignored-file",
        message: expect.stringMatching(/^settings\.json is not a DiscordChatExporter JSON file/),
      }),
    ]);
    expect((await summaryAsExpected(records)).counts).toEqual(expected("discord"));
  });
});

describe("limits", () => {
  it("refuses an export over the messages one import holds, and one too large unpacked, saying the limit", async () => {
    const read = async (limits: Parameters<typeof readExport>[1]) => {
      try {
        for await (const _ of readExport([slackZip()], limits));
      } catch (error) {
        return (error as Error).message;
      }
      return "read";
    };
    expect(await read({ limits: { messages: 20 } })).toBe(
      "acme.zip holds more than 20 messages, the most one import holds. Export a shorter date range (or fewer channels), and import the parts one after another.",
    );
    expect(await read({ limits: { textBytes: 10_000 } })).toMatch(
      /^acme\.zip holds \d+ KB once unpacked; the console reads exports of up to 10 KB/,
    );
    expect(await read({ limits: { zipEntries: 5 } })).toBe(
      "acme.zip holds 14 files; the console reads ZIPs of up to 5 files (their list is held in the browser's memory while reading). Export a shorter date range, and import the parts one after another.",
    );
  });

  it("stops when cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(readAllRecordsWith(controller.signal)).rejects.toThrow(
      "Reading the export was cancelled.",
    );
  });
});

async function readAllRecordsWith(signal: AbortSignal) {
  for await (const _ of readExport([slackZip()], { signal }));
}

/** Where an entry's compressed data starts, from its local header. */
function findEntryData(zip: Uint8Array, name: string): number {
  const bytes = strToU8(name);
  for (let at = 0; at < zip.length - 30; at++) {
    if (zip[at] !== 0x50 || zip[at + 1] !== 0x4b || zip[at + 2] !== 3 || zip[at + 3] !== 4)
      continue;
    const nameLength = zip[at + 26]! | (zip[at + 27]! << 8);
    const extraLength = zip[at + 28]! | (zip[at + 29]! << 8);
    const found = zip.subarray(at + 30, at + 30 + nameLength);
    if (found.length === bytes.length && found.every((byte, index) => byte === bytes[index]))
      return at + 30 + nameLength + extraLength;
  }
  throw new Error(`${name} is not in the ZIP`);
}
