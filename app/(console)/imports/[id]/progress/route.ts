import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { explained } from "@/lib/actions/import-refusals";
import { readJobProgress } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

/** The job's status, counts and pace; the job page polls it while the job runs. */
export const GET = adminRoute(z.object({ id: z.string() }), ({ id }) =>
  explained(async () => freshJson(await readJobProgress(id))),
);
