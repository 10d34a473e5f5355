import { describe, expect, it } from "vitest";
import { exportReadResultSchema, type ExportProgress } from "@/lib/imports/parse/export-protocol";
import { readDroppedExport } from "@/lib/imports/parse/export-reading";
import { expected, fixtureFile, fixtureZip } from "../fixtures/exports/build";

describe("reading a dropped export for the page (the export worker's work)", () => {
  it("reports progress up to the whole file, and returns the summary with a few samples", async () => {
    const file = fixtureFile(fixtureZip("slack"), "acme.zip");
    const progress: ExportProgress[] = [];
    const result = await readDroppedExport([file], { onProgress: (value) => progress.push(value) });
    expect(exportReadResultSchema.parse(result)).toEqual(result);
    expect(result.format).toBe("slack");
    expect(result.summary.messages.total).toBe(expected("slack").messages);
    expect(result.samples.people).toHaveLength(20);
    expect(result.samples.channels).toHaveLength(6);
    expect(result.samples.messages).toHaveLength(20);
    expect(progress.at(-1)).toMatchObject({ phase: "reading", done: file.size, total: file.size });
    expect(progress.every((value, at) => at === 0 || value.done >= progress[at - 1]!.done)).toBe(
      true,
    );
  });

  it("stops when cancelled, and refuses what is not an export with the reader's message", async () => {
    const controller = new AbortController();
    const reading = readDroppedExport([fixtureFile(fixtureZip("discord"), "acme.zip")], {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect(reading).rejects.toThrow("Reading the export was cancelled.");
    await expect(
      readDroppedExport([fixtureFile("a,b\n1,2\n", "table.csv")], { onProgress: () => {} }),
    ).rejects.toThrow("table.csv is not a Slack workspace export");
  });
});
