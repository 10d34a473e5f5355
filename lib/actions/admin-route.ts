import "server-only";
import { z } from "zod";
import { getAdminSession, type AdminSession } from "@/lib/auth/session";
import { ActionError } from "./action-error";
import { genericErrorMessage } from "./action-result";
import { signedOutMessage } from "./safe-action";

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/**
 * The only way to write a console route handler (reads: JSON pages, CSV downloads): the same
 * administrator check as every server action comes first, then the path's params and the
 * query string are parsed with `schema` (one object), then `handler` runs. Bad input is a 400
 * in the JSON error shape; our own refusals (`ActionError`) a 404 with their reason; anything
 * else is logged and answered with a generic 500.
 */
export function adminRoute<S extends z.ZodType>(
  schema: S,
  handler: (
    input: z.output<S>,
    context: { request: Request; session: AdminSession },
  ) => Promise<Response>,
) {
  return async (request: Request, context: RouteContext): Promise<Response> => {
    const session = await getAdminSession();
    if (!session) return Response.json({ error: signedOutMessage }, { status: 401 });
    const query = Object.fromEntries(new URL(request.url).searchParams);
    const parsed = schema.safeParse({ ...query, ...(await context.params) });
    if (!parsed.success) {
      return Response.json(
        { error: parsed.error.issues.map((issue) => issue.message).join(" ") },
        { status: 400 },
      );
    }
    try {
      return await handler(parsed.data, { request, session });
    } catch (error) {
      if (error instanceof ActionError)
        return Response.json({ error: error.message }, { status: 404 });
      console.error("[console] route failed:", error);
      return Response.json({ error: genericErrorMessage }, { status: 500 });
    }
  };
}
