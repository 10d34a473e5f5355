import type { ReactNode } from "react";
import { SignInRedirect } from "@/components/auth/sign-in-redirect";
import { ConsoleShell } from "@/components/shell/console-shell";
import { getAdminSession } from "@/lib/auth/session";

// Every console page reads the session cookie: nothing here may be prerendered.
export const dynamic = "force-dynamic";

/**
 * The gate for the first load of any console page: without a session the page is never
 * rendered. Each page still calls requireAdmin(path) itself, because layouts are not
 * re-run on client-side navigation; that call also redirects with `?next=`.
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  if (!(await getAdminSession())) return <SignInRedirect />;
  return <ConsoleShell>{children}</ConsoleShell>;
}
