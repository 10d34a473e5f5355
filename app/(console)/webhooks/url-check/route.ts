import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { webhookUrlSchema } from "@/lib/schemas/webhooks";
import { readUrlWarning } from "@/lib/webhooks/reads";

export const dynamic = "force-dynamic";

const querySchema = z.object({
  // What the form would save: anything else has no host to check.
  url: webhookUrlSchema.refine((url) => url !== "", { error: '"url" is required.' }),
});

/** Whether a URL's host is, or resolves to, an address the delivery guard refuses. */
export const GET = adminRoute(querySchema, async ({ url }) => freshJson(await readUrlWarning(url)));
