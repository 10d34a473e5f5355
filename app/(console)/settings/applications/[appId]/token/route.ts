import { ActionError } from "@/lib/actions/action-error";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { applicationRefSchema } from "@/lib/forms/sandbox-applications";
import { applicationToken } from "@/lib/settings/sandbox-applications";

export const dynamic = "force-dynamic";

/** The full token of a sandbox application, for the reveal and copy buttons: never in the page itself. */
export const GET = adminRoute(applicationRefSchema, async ({ appId }) => {
  const apiToken = await applicationToken(appId);
  if (apiToken === undefined)
    throw new ActionError(`There is no sandbox application "${appId}" any more. Reload the page.`);
  return freshJson({ apiToken });
});
