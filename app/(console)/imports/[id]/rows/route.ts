import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { explained } from "@/lib/actions/import-refusals";
import { readReportPage } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

const states = ["pending", "created", "existed", "failed", "invalid", "excluded"] as const;
const wholeNumber = (name: string, min: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number.` })
    .int(`${name} must be a whole number.`)
    .min(min, `${name} must be at least ${min}.`);

/** A page of the per-row report: `?state=failed&after=<row index>&limit=100`. */
export const GET = adminRoute(
  z.object({
    id: z.string(),
    state: z.enum(states, { error: `state must be one of ${states.join(", ")}.` }).optional(),
    after: wholeNumber("after", -1).default(-1),
    limit: wholeNumber("limit", 1).default(100),
  }),
  ({ id, state, after, limit }) =>
    explained(async () => freshJson(await readReportPage(id, { state, afterIndex: after, limit }))),
);
