import { noSuchSandboxApplication } from "@/lib/actions/action-error";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { findApplication, getSandboxApp } from "@/lib/sandbox";
import { applicationRefSchema } from "@/lib/schemas/sandbox-applications";

export const dynamic = "force-dynamic";

/** The full token of a sandbox application, for the reveal and copy buttons: never in the page itself. */
export const GET = adminRoute(applicationRefSchema, async ({ appId }) => {
  const app = await findApplication(await getSandboxApp().ready(), appId);
  if (!app) throw noSuchSandboxApplication(appId);
  return freshJson({ apiToken: app.apiToken });
});
