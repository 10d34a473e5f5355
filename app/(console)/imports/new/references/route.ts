import { z } from "zod";
import { adminRoute } from "@/lib/actions/admin-route";
import { readMissingReferences } from "@/lib/imports/jobs";
import { referenceLookupSchema } from "@/lib/imports/references";
import { getPlatformClient, PlatformError } from "@/lib/platform";

export const dynamic = "force-dynamic";

/**
 * The wizard's preview asks which channels and users its rows name exist nowhere: not on the
 * platform, not in an import of this console. POST `{ resource, channels, users }` (up to
 * 1,000 of each) answers `{ channels, users }`, the missing ones. Nothing is changed.
 */
export const POST = adminRoute(
  referenceLookupSchema.extend({
    resource: z.enum(["open_channels", "group_channels", "messages"], {
      error: "resource must be open_channels, group_channels or messages.",
    }),
  }),
  // Every resource asks alike (deactivated users count); `resource` stays in the request for the wizard.
  async ({ channels, users }) => {
    const headers = { "cache-control": "no-store" };
    try {
      const client = await getPlatformClient();
      return Response.json(await readMissingReferences(client, { channels, users }), { headers });
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      // The wizard says so and lets the administrator go on: the plan asks again.
      return Response.json(
        { error: `The platform could not be asked: ${error.message}` },
        { status: 502, headers },
      );
    }
  },
);
