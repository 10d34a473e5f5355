import { openExport, type OpenedExport } from "./detect";
import { readDiscordExport } from "./discord/read";
import { readMattermostExport } from "./mattermost/read";
import { readSlackExport } from "./slack/read";
import { ExportProblem, type ExportFile, type ExportRecord, type ReadOptions } from "./types";

/**
 * Readers of the exports people have (issue 24): a Slack workspace export, DiscordChatExporter
 * JSON, a Mattermost bulk export. Each is a pure, streaming function from the dropped files to
 * records (types.ts); what the records become on the platform is decided after, elsewhere.
 *
 *   for await (const record of readExport([file], { onProgress })) …
 */

export { openExport, type OpenedExport } from "./detect";
export { ReadCancelled } from "./entries";
export * from "./limits";
export {
  CommunitySummarizer,
  communitySummarySchema,
  summarize,
  type CommunitySummary,
} from "./summary";
export * from "./types";

/** Tells the format from the files and reads them: every record, in the order the reader yields them. */
export async function* readExport(
  files: readonly ExportFile[],
  options: ReadOptions = {},
): AsyncGenerator<ExportRecord> {
  yield* readOpenedExport(await openExport(files, options));
}

export async function* readOpenedExport(opened: OpenedExport): AsyncGenerator<ExportRecord> {
  const records =
    opened.format === "slack"
      ? readSlackExport(opened)
      : opened.format === "discord"
        ? readDiscordExport(opened)
        : readMattermostExport(opened);
  let messages = 0;
  for await (const record of records) {
    if (record.type === "message" && ++messages > opened.limits.messages)
      throw new ExportProblem(
        `${opened.name} holds more than ${opened.limits.messages.toLocaleString("en-US")} messages, the most one import holds. Export a shorter date range (or fewer channels), and import the parts one after another.`,
      );
    yield record;
  }
  opened.meter.finish();
}
