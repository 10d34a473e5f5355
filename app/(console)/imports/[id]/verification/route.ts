import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { explained } from "@/lib/actions/import-refusals";
import { readVerifications } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

/** The job's newest Verify of its run and of its rehearsal; the job page polls it while one runs. */
export const GET = adminRoute(z.object({ id: z.string() }), ({ id }) =>
  explained(async () => freshJson(await readVerifications(id))),
);
