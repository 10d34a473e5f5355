import { z } from "zod";
import { adminRoute } from "@/lib/actions/admin-route";
import { csvDownload } from "@/lib/actions/csv-download";
import { explained } from "@/lib/actions/import-refusals";
import { readFailures } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

/** The failures in the file's own columns plus `reason`, to fix and upload again. */
export const GET = adminRoute(z.object({ id: z.string() }), ({ id }) =>
  explained(async () => {
    const { job, lines } = await readFailures(id);
    return csvDownload(job.fileName, "failures", lines);
  }),
);
