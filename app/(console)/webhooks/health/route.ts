import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { readEndpointHealth } from "@/lib/webhooks/reads";

export const dynamic = "force-dynamic";

/** The configured endpoint's success rate, latency and volume over the last hour and day. */
export const GET = adminRoute(z.object({}), async () => freshJson(await readEndpointHealth()));
