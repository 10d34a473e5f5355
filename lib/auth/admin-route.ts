import "server-only";
import { z } from "zod";
import { ActionError } from "@/lib/actions/action-error";
import { genericErrorMessage } from "@/lib/actions/action-result";
import { signedOutMessage } from "@/lib/actions/safe-action";
import { PlatformError } from "@/lib/platform";
import { getAdminSession } from "./session";

const noStore = { "cache-control": "no-store" };

/**
 * A console read as a route handler, checked the way actions are: the session first (a
 * signed-out caller learns nothing), then the query parsed with `schema`, then `read`.
 * Answers JSON; a refusal is `{ "error": sentence }` with 400, 401 or 502 (the platform failed,
 * or refused for a reason other than the query).
 */
export function adminRoute<S extends z.ZodType, T>(
  schema: S,
  read: (input: z.output<S>) => Promise<T>,
) {
  return async (request: Request): Promise<Response> => {
    if (!(await getAdminSession()))
      return Response.json({ error: signedOutMessage }, { status: 401, headers: noStore });
    const parsed = schema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!parsed.success) {
      return Response.json(
        { error: parsed.error.issues[0]?.message ?? "Bad query." },
        { status: 400, headers: noStore },
      );
    }
    try {
      return Response.json(await read(parsed.data), { headers: noStore });
    } catch (error) {
      if (error instanceof ActionError)
        return Response.json({ error: error.message }, { status: 400, headers: noStore });
      if (error instanceof PlatformError) {
        // The platform refused the query it was handed (a paging token it never issued, say):
        // the caller's mistake, as a 400 of ours would be.
        const status = error.status === 400 ? 400 : 502;
        const code = error.code === null ? "" : ` (code ${error.code})`;
        return Response.json(
          { error: `The platform refused: ${error.message}${code}` },
          { status, headers: noStore },
        );
      }
      console.error("[route] unexpected error:", error);
      return Response.json({ error: genericErrorMessage }, { status: 500, headers: noStore });
    }
  };
}
