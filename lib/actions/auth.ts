"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { verifyAdminPassword } from "@/lib/auth/admin-password";
import { rememberThisBrowser, rememberedBrowserId } from "@/lib/auth/remembered-browser";
import { clientAddress } from "@/lib/auth/request-info";
import { safeNextPath } from "@/lib/auth/safe-next";
import { endAdminSession, startAdminSession } from "@/lib/auth/session";
import { SignInThrottle, addressKey } from "@/lib/auth/sign-in-throttle";
import { getDb } from "@/lib/db/client";
import { signInSchema } from "@/lib/forms/sign-in";
import { z } from "zod";
import { ActionError, adminAction, signedOutAction } from "./safe-action";

// One throttle per process; Next.js may load this module in several bundles, hence globalThis.
const throttleKey = Symbol.for("switchboard.sign-in-throttle");
type GlobalWithThrottle = typeof globalThis & { [throttleKey]?: SignInThrottle };
function throttle(): SignInThrottle {
  const store = globalThis as GlobalWithThrottle;
  return (store[throttleKey] ??= new SignInThrottle());
}

function seconds(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms / 1000));
  return `${whole} second${whole === 1 ? "" : "s"}`;
}

export const signIn = signedOutAction(signInSchema, async ({ password, next }) => {
  const db = await getDb();
  // A browser that signed in before is throttled on its own and goes first when checks are paced.
  const browser = await rememberedBrowserId(db);
  const client = browser
    ? { key: `browser:${browser}`, trusted: true }
    : { key: addressKey(clientAddress(await headers())), trusted: false };
  const result = await throttle().attempt(client, () => verifyAdminPassword(db, password));
  if (result.outcome === "throttled") {
    throw new ActionError(
      `Too many failed sign-ins. Wait ${seconds(result.retryAfterMs)} and try again.`,
    );
  }
  if (result.outcome === "busy") {
    throw new ActionError(
      `Sign-in is slowed down: many wrong passwords are arriving from elsewhere. Wait ${seconds(result.retryAfterMs)} and try again.`,
    );
  }
  if (result.outcome === "wrong-password") {
    throw new ActionError(
      result.retryAfterMs > 0
        ? `Wrong password. Wait ${seconds(result.retryAfterMs)} before the next try.`
        : "Wrong password.",
      { field: "password" },
    );
  }
  await startAdminSession();
  await rememberThisBrowser(db);
  redirect(safeNextPath(next));
});

export const signOut = adminAction(z.object({}), async () => {
  await endAdminSession();
  redirect("/sign-in");
});
