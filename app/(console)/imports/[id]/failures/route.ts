import { z } from "zod";
import { adminRoute } from "@/lib/actions/admin-route";
import { explained } from "@/lib/actions/import-refusals";
import { readFailures } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

/** The failures in the file's own columns plus `reason`, to fix and upload again. */
export const GET = adminRoute(z.object({ id: z.string() }), ({ id }) =>
  explained(async () => {
    const { job, lines } = await readFailures(id);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
    });
    const baseName = job.fileName.replace(/\.[^.]+$/, "").replace(/[^\w.-]+/g, "_") || "import";
    return new Response(body, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${baseName}-failures.csv"`,
        "cache-control": "no-store",
      },
    });
  }),
);
