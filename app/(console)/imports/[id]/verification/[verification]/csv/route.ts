import { z } from "zod";
import { adminRoute } from "@/lib/actions/admin-route";
import { csvDownload } from "@/lib/actions/csv-download";
import { explained } from "@/lib/actions/import-refusals";
import { readVerificationCsv } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

/** The Verify report: matched, then each missing, extra and different finding with its row and reason. */
export const GET = adminRoute(
  z.object({ id: z.string(), verification: z.uuid({ error: "There is no such Verify." }) }),
  ({ id, verification }) =>
    explained(async () => {
      const { job, lines } = await readVerificationCsv(id, verification);
      return csvDownload(job.fileName, "verify", lines);
    }),
);
