import { z } from "zod";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { deliveryLogFilterSchema } from "@/lib/webhooks/delivery-log";
import { readDeliveryLog } from "@/lib/webhooks/reads";

export const dynamic = "force-dynamic";

const querySchema = deliveryLogFilterSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  token: z.string().max(100).optional(),
});

/** A page of the delivery log, filtered where it is stored. */
export const GET = adminRoute(querySchema, async (query) =>
  freshJson(await readDeliveryLog(query)),
);
