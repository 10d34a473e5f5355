import "server-only";
import { getAdminSession } from "@/lib/auth/session";
import { ImportJobError } from "./store";

/**
 * The job page's JSON and CSV routes: a session first (the proxy is only the first gate),
 * then the work; our own refusals become a 404 with the reason, anything else a 500.
 */
export async function withAdmin(work: () => Promise<Response>): Promise<Response> {
  if (!(await getAdminSession())) {
    return Response.json({ error: "Your session has ended. Sign in again to continue." }, { status: 401 });
  }
  try {
    return await work();
  } catch (error) {
    if (error instanceof ImportJobError) return Response.json({ error: error.message }, { status: 404 });
    console.error("[imports] route failed:", error);
    return Response.json({ error: "Something went wrong on our side." }, { status: 500 });
  }
}
