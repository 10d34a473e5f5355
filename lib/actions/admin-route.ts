import "server-only";
import { z } from "zod";
import { getAdminSession, type AdminSession } from "@/lib/auth/session";
import { PlatformError } from "@/lib/platform";
import { findUnstorableText, unstorableTextMessage } from "@/lib/schemas/text-values";
import { ActionError } from "./action-error";
import { genericErrorMessage } from "./action-result";
import { signedOutMessage } from "./safe-action";

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/**
 * The only way to write a console route handler (reads: JSON pages, CSV downloads): the same
 * administrator check as every server action comes first, then the path's params, the query
 * string and, for a POST, its JSON body are parsed with `schema` (one object), then `handler`
 * runs. A POST is a read too big for a URL (a look-up of a thousand ids), never a change:
 * changes are server actions. Bad input is a 400
 * in the JSON error shape; our own refusals (`ActionError`) a 404 with their reason; the
 * platform's refusals a 502 with its reason, or a 400 when it refused the query it was handed
 * (a paging token it never issued, say); anything else is logged and answered with a generic 500.
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
    const body = request.method === "POST" ? await jsonBody(request) : {};
    if (body === null)
      return Response.json({ error: "The request body must be a JSON object." }, { status: 400 });
    // The database cannot hold them, nor compare with them: refused, not a 500.
    if (findUnstorableText(body) !== undefined)
      return Response.json({ error: `The request ${unstorableTextMessage}` }, { status: 400 });
    const parsed = schema.safeParse({ ...query, ...body, ...(await context.params) });
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
      if (error instanceof PlatformError) {
        const code = error.code === null ? "" : ` (code ${error.code})`;
        return Response.json(
          { error: `The platform refused: ${error.message}${code}` },
          { status: error.status === 400 ? 400 : 502 },
        );
      }
      console.error("[console] route failed:", error);
      return Response.json({ error: genericErrorMessage }, { status: 500 });
    }
  };
}

/** A POST's JSON object, or null when the body is not one (or not sent as JSON). */
async function jsonBody(request: Request): Promise<Record<string, unknown> | null> {
  if (!request.headers.get("content-type")?.startsWith("application/json")) return null;
  try {
    const body: unknown = await request.json();
    return typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A read's answer: JSON that no cache keeps. */
export function freshJson(data: unknown): Response {
  return Response.json(data, { headers: { "cache-control": "no-store" } });
}
