import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { deliveryLogFilterSchema } from "@/lib/webhooks/delivery-log";
import { readDeliveryCounts } from "@/lib/webhooks/reads";

export const dynamic = "force-dynamic";

/** Deliveries per outcome for the log's filter. */
export const GET = adminRoute(deliveryLogFilterSchema, async (filter) =>
  freshJson(await readDeliveryCounts(filter)),
);
