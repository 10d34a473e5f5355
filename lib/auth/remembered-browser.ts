import "server-only";
import { randomBytes } from "node:crypto";
import { cookies, headers } from "next/headers";
import type { Database } from "@/lib/db/client";
import { getSessionSecret } from "./console-settings";
import { isHttps } from "./request-info";
import { signSessionCookie, verifySessionCookie } from "./session-cookie";

/**
 * A browser that has signed in before carries this cookie (OWASP's "device cookie"): when a
 * flood of wrong passwords paces sign-in checks, its attempt goes first. It proves a past
 * sign-in, not a session: it opens nothing by itself.
 */
export const rememberedBrowserCookieName = "switchboard_browser";
const rememberedForMs = 90 * 24 * 3600 * 1000;

/** Its own key, so that a session cookie is never taken for a remembered browser, nor the reverse. */
async function cookieSecret(db: Database): Promise<string> {
  return `${await getSessionSecret(db)}:remembered-browser`;
}

/** After a successful sign-in: this browser is remembered for the next 90 days. */
export async function rememberThisBrowser(db: Database): Promise<void> {
  const id = randomBytes(16).toString("base64url");
  const expiresAt = new Date(Date.now() + rememberedForMs);
  (await cookies()).set(
    rememberedBrowserCookieName,
    signSessionCookie({ id, expiresAt }, await cookieSecret(db)),
    {
      httpOnly: true,
      sameSite: "lax",
      secure: isHttps(await headers()),
      path: "/",
      expires: expiresAt,
    },
  );
}

/** The id of this browser if it has signed in here before (a cookie whose signature holds, unexpired). */
export async function rememberedBrowserId(db: Database): Promise<string | null> {
  const value = (await cookies()).get(rememberedBrowserCookieName)?.value;
  if (!value) return null;
  return verifySessionCookie(value, await cookieSecret(db))?.id ?? null;
}
