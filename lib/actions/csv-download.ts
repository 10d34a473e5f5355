import "server-only";

/**
 * A CSV download streamed a chunk at a time (a million-row report never sits in memory), named
 * after the import's file: `<file name>-<suffix>.csv`.
 */
export function csvDownload(
  fileName: string,
  suffix: string,
  lines: AsyncGenerator<string>,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  const baseName = fileName.replace(/\.[^.]+$/, "").replace(/[^\w.-]+/g, "_") || "import";
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${baseName}-${suffix}.csv"`,
      "cache-control": "no-store",
    },
  });
}
