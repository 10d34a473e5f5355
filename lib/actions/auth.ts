"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { verifyAdminPassword } from "@/lib/auth/admin-password";
import { clientAddress } from "@/lib/auth/request-info";
import { safeNextPath } from "@/lib/auth/safe-next";
import { endAdminSession, startAdminSession } from "@/lib/auth/session";
import { SignInThrottle } from "@/lib/auth/sign-in-throttle";
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
  const client = clientAddress(await headers());
  const decision = throttle().check(client);
  if (!decision.allowed) {
    throw new ActionError(
      decision.scope === "client"
        ? `Too many failed sign-ins. Wait ${seconds(decision.retryAfterMs)} and try again.`
        : `Too many failed sign-ins from several places recently. Wait ${seconds(decision.retryAfterMs)} and try again.`,
    );
  }
  if (!(await verifyAdminPassword(await getDb(), password))) {
    const wait = throttle().recordFailure(client);
    throw new ActionError(
      wait > 0 ? `Wrong password. Wait ${seconds(wait)} before the next try.` : "Wrong password.",
      { field: "password" },
    );
  }
  throttle().recordSuccess(client);
  await startAdminSession();
  redirect(safeNextPath(next));
});

export const signOut = adminAction(z.object({}), async () => {
  await endAdminSession();
  redirect("/sign-in");
});
