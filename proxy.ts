import { NextResponse, type NextRequest } from "next/server";
import { signInPath } from "@/lib/auth/safe-next";
import { findAdminSession } from "@/lib/auth/session";
import { sessionCookieName } from "@/lib/auth/session-cookie";
import { importJobExists } from "@/lib/imports/jobs";
import { refuseServerActionRequest, serverActionBodyLimitBytes } from "@/lib/server/action-request";

/**
 * Sends a signed-out visitor of any console page to the sign-in page with `?next=`, as a
 * plain HTTP redirect before anything renders. Pages and actions still check the session
 * themselves (this is the first gate, not the only one).
 */
export async function proxy(request: NextRequest) {
  const refusal = request.method === "POST" ? await refuseActionPost(request) : undefined;
  if (refusal) return Response.json({ error: refusal.message }, { status: refusal.status });
  // Reached through the second and third matchers only for the check above.
  if (!sessionGated.test(request.nextUrl.pathname)) return NextResponse.next();
  // Server actions answer a signed-out caller with their own error, not a redirect.
  if (request.headers.has("next-action")) return NextResponse.next();
  // So do the console's own reads (fetch to a route handler behind adminRoute): a redirect
  // would hand them the sign-in page's HTML instead of the 401 that says the session ended.
  // A browser marks them `Sec-Fetch-Dest: empty`; page loads and RSC navigations still redirect.
  if (request.headers.get("sec-fetch-dest") === "empty" && !request.headers.has("rsc")) {
    return NextResponse.next();
  }
  const session = await findAdminSession(request.cookies.get(sessionCookieName)?.value);
  const { pathname, search } = request.nextUrl;
  if (!session)
    return NextResponse.redirect(new URL(signInPath(`${pathname}${search}`), request.url), 307);
  if (!request.headers.has("rsc") && (await isMissingImportJob(pathname)))
    return NextResponse.rewrite(new URL("/_not-found", request.url));
  return NextResponse.next();
}

/**
 * A POST that Next.js would decode as a server action (a `Next-Action` header, or a multipart
 * form, which it tries as a form's action) is refused here when its body cannot be decoded:
 * Next.js would answer it with a 500 (see lib/server/action-request.ts). Next.js hands the
 * proxy a copy of the body.
 */
async function refuseActionPost(request: NextRequest) {
  const contentType = request.headers.get("content-type") ?? "";
  const isActionCall = request.headers.has("next-action");
  if (!isActionCall && !contentType.toLowerCase().startsWith("multipart/form-data")) return;
  const body = new Uint8Array(await request.arrayBuffer());
  return refuseServerActionRequest({ contentType, isActionCall, body }, serverActionBodyLimitBytes);
}

/** The paths of the first matcher below: pages and reads behind the session. */
const sessionGated =
  /^\/(?!sign-in|healthz$|sandbox\/|sandbox$|_next\/|favicon\.ico|.*\.(?:svg|png|jpg|ico|txt|webmanifest)$)/;

/** The pages under /imports/ whose address is not a job's. */
const importPages = new Set(["new", "migration", "export"]);

/**
 * A job's page renders inside the console's loading boundary, whose fallback has already sent
 * a 200 by the time the page finds no job; so the address of no job is answered 404 here,
 * before anything renders. A client-side navigation (RSC) has no status to keep: it gets the
 * page's own notFound().
 */
async function isMissingImportJob(pathname: string): Promise<boolean> {
  const id = /^\/imports\/([^/]+)$/.exec(pathname)?.[1];
  if (id === undefined || importPages.has(id)) return false;
  return !(await importJobExists(id));
}

export const config = {
  matcher: [
    // Not the sign-in page, not /healthz (supervisors), not the sandbox (Api-Token), not Next.js
    // assets or public files. `sessionGated` above is the same set.
    "/((?!sign-in|healthz$|sandbox/|sandbox$|_next/|favicon\\.ico|.*\\.(?:svg|png|jpg|ico|txt|webmanifest)$).*)",
    // Anywhere but the sandbox: whatever Next.js may take for a server action call.
    {
      source: "/((?!sandbox/|sandbox$|_next/).*)",
      has: [{ type: "header", key: "next-action" }],
    },
    {
      source: "/((?!sandbox/|sandbox$|_next/).*)",
      has: [{ type: "header", key: "content-type", value: "multipart/form-data.*" }],
    },
  ],
};
