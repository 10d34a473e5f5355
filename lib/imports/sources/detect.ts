import { entryHead, looseEntry, ReadMeter, zipEntry, type ExportEntry } from "./entries";
import { exportLimits } from "./limits";
import { formatBytes } from "../parse/sniff";
import {
  ExportProblem,
  exportFormatNames,
  type ExportFile,
  type ExportFormat,
  type ExportLimits,
  type ReadOptions,
} from "./types";
import { isZip, readBytes, readZipDirectory } from "./zip";

/**
 * Which export the dropped files are, from the files themselves (names inside a ZIP, and the
 * first bytes of a file), before anything is read in full:
 * - Slack: a ZIP with users.json and channels.json, at its root or in one folder;
 * - Mattermost: a JSONL file whose first line is `{"type":"version",…}`, alone or in a ZIP;
 * - Discord: DiscordChatExporter JSON files (`{"guild": …, "channel": …, "messages": […]}`),
 *   one or several, alone or in a ZIP.
 * Anything else is refused with what it is, in plain words.
 */

export type OpenedExport = {
  format: ExportFormat;
  /** What was dropped: the ZIP's name, or the files' names. */
  name: string;
  entries: ExportEntry[];
  /** Slack: the folder inside the ZIP that holds users.json ("" at the root, else ending in "/"). */
  root: string;
  meter: ReadMeter;
  limits: ExportLimits;
};

const SLACK_USERS = ["users.json", "org_users.json"];
const MATTERMOST_FIRST_LINE = /^\s*\{\s*"type"\s*:\s*"version"/;
const DISCORD_START = /^\s*\{\s*"guild"\s*:/;

export async function openExport(
  files: readonly ExportFile[],
  options: ReadOptions = {},
): Promise<OpenedExport> {
  if (files.length === 0) throw new ExportProblem("Choose the export to read.");
  for (const file of files)
    if (file.size === 0)
      throw new ExportProblem(
        `${file.name} is empty (0 bytes). Export again and choose the new file.`,
      );
  const total = files.reduce((sum, file) => sum + file.size, 0);
  const meter = new ReadMeter(total, options);
  const limits = exportLimits(options);
  const heads = await Promise.all(files.map((file) => readBytes(file, 0, 8)));
  const zips = files.filter((_, at) => isZip(heads[at]!));
  if (zips.length > 0 && files.length > 1)
    throw new ExportProblem(
      "Choose one export at a time: one ZIP, or the JSON files of one Discord export.",
    );
  const name = files.length === 1 ? files[0]!.name : `${files.length} files`;
  const entries =
    zips.length === 1
      ? await zipEntries(zips[0]!, meter, limits.zipEntries)
      : files.map((file) => looseEntry(file, meter));
  const textBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (textBytes > limits.textBytes)
    throw new ExportProblem(
      `${name} holds ${formatBytes(textBytes)} once unpacked; the console reads exports of up to ${formatBytes(limits.textBytes)} (about ${limits.messages.toLocaleString("en-US")} messages, what one import holds). Export a shorter date range (or fewer channels), and import the parts one after another.`,
    );

  const detected = await detect(entries);
  meter.reset();
  if (!detected) throw notAnExport(name, entries, zips.length === 1);
  return { ...detected, name, entries, meter, limits };
}

async function zipEntries(
  file: ExportFile,
  meter: ReadMeter,
  maxEntries: number,
): Promise<ExportEntry[]> {
  const directory = await readZipDirectory(file);
  if (directory.length > maxEntries)
    throw new ExportProblem(
      `${file.name} holds ${directory.length.toLocaleString("en-US")} files; the console reads ZIPs of up to ${maxEntries.toLocaleString("en-US")} files (their list is held in the browser's memory while reading). Export a shorter date range, and import the parts one after another.`,
    );
  return directory.map((entry) => zipEntry(file, entry, meter));
}

async function detect(
  entries: ExportEntry[],
): Promise<{ format: ExportFormat; root: string } | null> {
  const paths = new Set(entries.map((entry) => entry.path));
  for (const entry of entries) {
    const slash = entry.path.lastIndexOf("/");
    const folder = entry.path.slice(0, slash + 1);
    const base = entry.path.slice(slash + 1);
    // At the root, or in the one folder a re-zipped download puts everything in.
    if (
      SLACK_USERS.includes(base) &&
      folder.split("/").length <= 2 &&
      paths.has(`${folder}channels.json`)
    )
      return { format: "slack", root: folder };
  }
  const loose = !entries.some((entry) => entry.path.includes("/")) && entries.length <= 1;
  for (const entry of entries) {
    if (!loose && !entry.path.toLowerCase().endsWith(".jsonl")) continue;
    if (MATTERMOST_FIRST_LINE.test(await entryHead(entry, 512)))
      return { format: "mattermost", root: "" };
  }
  for (const entry of entries) {
    if (!entry.path.toLowerCase().endsWith(".json") && entries.length > 1) continue;
    if (DISCORD_START.test(await entryHead(entry, 512))) return { format: "discord", root: "" };
  }
  return null;
}

function notAnExport(name: string, entries: ExportEntry[], zip: boolean): ExportProblem {
  const formats = `a ${exportFormatNames.slack}, a ${exportFormatNames.discord} or a ${exportFormatNames.mattermost}`;
  const looked =
    "no users.json with channels.json (Slack), no JSON file that starts with a guild and a channel (DiscordChatExporter), and no JSONL file whose first line is a version line (Mattermost)";
  if (zip) {
    const shown = entries.slice(0, 5).map((entry) => entry.path);
    const more = entries.length > shown.length ? `, and ${entries.length - shown.length} more` : "";
    return new ExportProblem(
      `${name} is a ZIP archive, but not ${formats}: it holds ${shown.join(", ") || "no files"}${more}, and ${looked}.`,
    );
  }
  return new ExportProblem(
    `${name} is not ${formats}: it has ${looked}. To import a CSV, JSON or XLSX file of users, channels or messages, use New import instead.`,
  );
}
