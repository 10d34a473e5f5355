import { z } from "zod";
import { adminRoute } from "@/lib/auth/admin-route";
import { readUrlWarning } from "@/lib/webhooks/reads";

export const dynamic = "force-dynamic";

/** Whether a URL's host is, or resolves to, an address the delivery guard refuses. */
export const GET = adminRoute(z.object({ url: z.string().min(1).max(2048) }), ({ url }) =>
  readUrlWarning(url),
);
