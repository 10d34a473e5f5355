import { z } from "zod";
import { exportForecastSchema, flowResources, type ExportChoices } from "../export-flow";
import {
  channelRecordSchema,
  communitySummarySchema,
  exportFormatSchema,
  messageRecordSchema,
  personRecordSchema,
} from "../sources";

/**
 * Messages between the page and the export worker (export-worker.ts). The export's records
 * stay in the worker; the page gets progress, the community's summary (now and then while
 * reading, and at the end) and a few records as samples. Same shape as the preview worker's
 * protocol: numbered requests, one result each, progress in between.
 */

export const SAMPLE_RECORDS = 20;

export const exportReadResultSchema = z.object({
  format: exportFormatSchema,
  summary: communitySummarySchema,
  /** The first records of each kind, to show what the export holds. */
  samples: z.object({
    people: z.array(personRecordSchema),
    channels: z.array(channelRecordSchema),
    messages: z.array(messageRecordSchema),
  }),
});
export type ExportReadResult = z.infer<typeof exportReadResultSchema>;

export const exportProgressSchema = z.object({
  /** "opening": telling the format from the files; "reading": records streaming. */
  phase: z.enum(["opening", "reading"]),
  /** Bytes of the dropped files read, of all of them. */
  done: z.number(),
  total: z.number(),
  /** The summary so far, about once a second while reading. */
  summary: communitySummarySchema.nullable(),
});
export type ExportProgress = z.infer<typeof exportProgressSchema>;

/** A chunk of one import's rows, numbered from 0 within that import. */
export const rowsBatchSchema = z.object({
  batch: z
    .object({
      resource: z.enum(flowResources),
      rows: z.array(z.object({ index: z.number(), values: z.array(z.string()) })),
    })
    .nullable(),
  /** Null until the last batch has been taken; then the forecast of what was made. */
  forecast: exportForecastSchema.nullable(),
});
export type RowsBatch = z.infer<typeof rowsBatchSchema>;

export type ExportRequest =
  | { type: "read"; files: File[] }
  /** Reads the export last read again with the choices, counting what the imports would hold. */
  | { type: "forecast"; choices: ExportChoices }
  /**
   * The next chunk of rows of the export last read (`restart`: from its beginning), within
   * `maxRows` and `maxBytes`; the reading pauses between requests, so the page sets the pace.
   */
  | { type: "rows"; choices: ExportChoices; restart: boolean; maxRows: number; maxBytes: number }
  /** Stops the reading under way; its request then fails with "Reading the export was cancelled." */
  | { type: "cancel" };

export type ExportWorkerInbound = { id: number; request: ExportRequest };

export type ExportWorkerOutbound =
  | { kind: "result"; id: number; ok: true; result: unknown }
  | { kind: "result"; id: number; ok: false; message: string }
  | { kind: "progress"; id: number; progress: ExportProgress };
