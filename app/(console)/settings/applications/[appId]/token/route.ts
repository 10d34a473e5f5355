import { ActionError } from "@/lib/actions/action-error";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { getDb } from "@/lib/db/client";
import { applicationRefSchema } from "@/lib/forms/sandbox-applications";
import { findApplication } from "@/lib/sandbox";

export const dynamic = "force-dynamic";

/** The full token of a sandbox application, for the reveal and copy buttons: never in the page itself. */
export const GET = adminRoute(applicationRefSchema, async ({ appId }) => {
  const app = await findApplication(await getDb(), appId);
  if (!app)
    throw new ActionError(`There is no sandbox application "${appId}" any more. Reload the page.`);
  return freshJson({ apiToken: app.apiToken });
});
