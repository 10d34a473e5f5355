import {
  convertRecords,
  flowResources,
  forecastRecords,
  type ExportChoices,
  type ExportForecast,
  type FlowResource,
  type FlowRow,
} from "../export-flow";
import { readExport, type ExportFile } from "../sources";
import type { RowsBatch } from "./export-protocol";

/**
 * The export worker's second and third readings: the forecast with the administrator's
 * choices, and then the rows of the three imports in chunks the page asks for one at a time.
 * Each reads the dropped files again from their start (they are never held whole), so the
 * memory used is a chunk of rows and what the converter keeps, whatever the export's size.
 */

export function forecastDroppedExport(
  files: readonly ExportFile[],
  choices: ExportChoices,
  signal?: AbortSignal,
): Promise<ExportForecast> {
  return forecastRecords(readExport(files, { signal }), choices);
}

const encoder = new TextEncoder();

export class ExportRowsReader {
  private readonly rows: AsyncGenerator<FlowRow, ExportForecast>;
  private readonly buffers = new Map<
    FlowResource,
    { rows: NonNullable<RowsBatch["batch"]>; bytes: number }
  >();
  private readonly next = Object.fromEntries(
    flowResources.map((resource) => [resource, 0]),
  ) as Record<FlowResource, number>;
  private forecast: ExportForecast | null = null;

  constructor(files: readonly ExportFile[], choices: ExportChoices, signal?: AbortSignal) {
    this.rows = convertRecords(readExport(files, { signal }), choices);
  }

  /** The next full chunk of one import (or, at the end, what is left of each), then the forecast. */
  async take(maxRows: number, maxBytes: number): Promise<RowsBatch> {
    while (this.forecast === null) {
      const step = await this.rows.next();
      if (step.done) {
        this.forecast = step.value;
        break;
      }
      const row = step.value;
      const bytes = encoder.encode(JSON.stringify(row.values)).length + 16;
      const buffer = this.buffers.get(row.resource);
      if (buffer && (buffer.rows.rows.length >= maxRows || buffer.bytes + bytes > maxBytes)) {
        this.buffers.delete(row.resource);
        this.keep(row, bytes);
        return { batch: buffer.rows, forecast: null };
      }
      this.keep(row, bytes);
    }
    for (const resource of flowResources) {
      const buffer = this.buffers.get(resource);
      if (!buffer) continue;
      this.buffers.delete(resource);
      return { batch: buffer.rows, forecast: null };
    }
    return { batch: null, forecast: this.forecast };
  }

  private keep(row: FlowRow, bytes: number): void {
    const buffer = this.buffers.get(row.resource) ?? {
      rows: { resource: row.resource, rows: [] },
      bytes: 0,
    };
    this.buffers.set(row.resource, buffer);
    buffer.rows.rows.push({ index: this.next[row.resource]++, values: row.values });
    buffer.bytes += bytes;
  }
}
