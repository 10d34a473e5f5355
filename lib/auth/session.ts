import "server-only";
import { randomBytes } from "node:crypto";
import { and, eq, gt, lt } from "drizzle-orm";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@/lib/db/client";
import { adminSessions } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { getSessionSecret } from "./console-settings";
import { isHttps } from "./request-info";
import { signInPath } from "./safe-next";
import {
  hashSessionId,
  sessionCookieName,
  signSessionCookie,
  verifySessionCookie,
} from "./session-cookie";

/** `targetId`: the target this session works on (lib/targets); null: the default one. */
export type AdminSession = { id: string; expiresAt: Date; targetId: string | null };

/** Starts a session after a successful sign-in and sets its cookie. */
export async function startAdminSession(): Promise<void> {
  const db = await getDb();
  const id = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + env().SESSION_TTL_HOURS * 3600 * 1000);
  // Expired rows are useless; sign-in is a rare enough moment to sweep them.
  await db.delete(adminSessions).where(lt(adminSessions.expiresAt, new Date()));
  await db.insert(adminSessions).values({ id: hashSessionId(id), expiresAt });
  const secure = isHttps(await headers());
  (await cookies()).set(
    sessionCookieName,
    signSessionCookie({ id, expiresAt }, await getSessionSecret(db)),
    {
      httpOnly: true,
      sameSite: "lax",
      secure,
      path: "/",
      expires: expiresAt,
    },
  );
}

/** The session a cookie value stands for, if its signature holds and the session is current. */
export async function findAdminSession(
  cookieValue: string | undefined,
): Promise<AdminSession | null> {
  if (!cookieValue) return null;
  const db = await getDb();
  const cookie = verifySessionCookie(cookieValue, await getSessionSecret(db));
  if (!cookie) return null;
  const [row] = await db
    .select()
    .from(adminSessions)
    .where(
      and(eq(adminSessions.id, hashSessionId(cookie.id)), gt(adminSessions.expiresAt, new Date())),
    )
    .limit(1);
  return row ? { id: row.id, expiresAt: row.expiresAt, targetId: row.targetId } : null;
}

/** The signed-in administrator's session, or null. Once per request, however many callers ask. */
export const getAdminSession = cache(async (): Promise<AdminSession | null> =>
  findAdminSession((await cookies()).get(sessionCookieName)?.value),
);

/**
 * Every console page calls this, not only the layout: layouts are not re-run on client-side
 * navigation. `currentPath` brings the administrator back after signing in.
 */
export async function requireAdmin(currentPath?: string): Promise<AdminSession> {
  const session = await getAdminSession();
  if (!session) redirect(signInPath(currentPath));
  return session;
}

/** The session works on `targetId` from its next request on (the target switcher). */
export async function chooseSessionTarget(session: AdminSession, targetId: string): Promise<void> {
  await (
    await getDb()
  )
    .update(adminSessions)
    .set({ targetId })
    .where(eq(adminSessions.id, session.id));
}

/** Deletes the session row (the cookie alone is then worthless) and the cookie. */
export async function endAdminSession(): Promise<void> {
  const session = await getAdminSession();
  if (session) await (await getDb()).delete(adminSessions).where(eq(adminSessions.id, session.id));
  (await cookies()).delete({ name: sessionCookieName, path: "/" });
}
