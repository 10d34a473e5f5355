import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { checkPlatformConnection } from "@/lib/platform";

export const dynamic = "force-dynamic";

/** Reads the platform's webhook settings, the cheapest authenticated call, and says how it went. */
export const GET = adminRoute(z.object({}), async () => freshJson(await checkPlatformConnection()));
