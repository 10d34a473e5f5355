import { inject } from "vitest";
import { serverActionId } from "./server-actions";

/**
 * Signs in through the sign-in action, as the form does; returns the session cookie. `server`:
 * a console of the test's own (the shared one when absent).
 */
export async function signIn(
  server: { origin: string; adminPassword: string } = inject("console"),
): Promise<string> {
  const { origin, adminPassword } = server;
  const response = await fetch(`${origin}/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "next-action": serverActionId("lib/actions/auth.ts", "signIn")!,
      accept: "text/x-component",
      "content-type": "text/plain;charset=UTF-8",
      origin,
    },
    body: JSON.stringify([{ password: adminPassword, next: "/" }]),
  });
  const cookie = response.headers
    .getSetCookie()
    .find((line) => line.startsWith("switchboard_session="));
  if (!cookie) throw new Error(`no session cookie: ${response.status}`);
  return cookie.split(";")[0]!;
}
