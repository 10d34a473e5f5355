import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { readWebhookSettings } from "@/lib/webhooks/reads";

export const dynamic = "force-dynamic";

/** The platform's webhook settings, read now (the page reads them again before every save). */
export const GET = adminRoute(z.object({}), async () => freshJson(await readWebhookSettings()));
