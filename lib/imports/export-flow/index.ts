import type { ExportRecord } from "@/lib/imports/sources/types";
import type { ExportChoices } from "./choices";
import { ExportConverter } from "./convert";
import type { ExportForecast } from "./forecast";
import type { FlowRow } from "./rows";

/**
 * From an export's records to the imports the flat files make (issue 24, item 2): the
 * administrator's choices, the forecast, and the rows of the users, group channels and
 * messages imports, their columns and mapping. Pure and streaming: records in, rows out.
 */

export * from "./choices";
export * from "./forecast";
export * from "./rows";
export { ExportConverter } from "./convert";

/** Every row the records make, in the order they are made, and the forecast at the end. */
export async function* convertRecords(
  records: AsyncIterable<ExportRecord> | Iterable<ExportRecord>,
  choices: ExportChoices,
): AsyncGenerator<FlowRow, ExportForecast> {
  const converter = new ExportConverter(choices);
  for await (const record of records) yield* converter.add(record);
  yield* converter.finish();
  return converter.result();
}

/** The forecast alone: the rows are counted and let go. */
export async function forecastRecords(
  records: AsyncIterable<ExportRecord> | Iterable<ExportRecord>,
  choices: ExportChoices,
): Promise<ExportForecast> {
  const converter = new ExportConverter(choices);
  for await (const record of records) converter.add(record);
  converter.finish();
  return converter.result();
}
