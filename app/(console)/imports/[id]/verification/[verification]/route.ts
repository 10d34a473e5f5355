import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { explained } from "@/lib/actions/import-refusals";
import { readVerificationFindings } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

const wholeNumber = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number.` })
    .int(`${name} must be a whole number.`)
    .min(min, `${name} must be at least ${min}.`)
    .max(max, `${name} must be at most ${max}.`);

/** A page of a Verify's findings: `?after=<finding id>&limit=1000`. */
export const GET = adminRoute(
  z.object({
    id: z.string(),
    verification: z.uuid({ error: "There is no such Verify." }),
    after: wholeNumber("after", 0, Number.MAX_SAFE_INTEGER).default(0),
    limit: wholeNumber("limit", 1, 5000).default(1000),
  }),
  ({ id, verification, after, limit }) =>
    explained(async () =>
      freshJson(await readVerificationFindings(id, verification, { after, limit })),
    ),
);
