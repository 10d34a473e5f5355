import type { ReactNode } from "react";
import { SignInRedirect } from "@/components/auth/sign-in-redirect";
import { ConsoleShell } from "@/components/shell/console-shell";
import { getAdminSession } from "@/lib/auth/session";
import { getPlatformTarget } from "@/lib/platform";
import { listTargets } from "@/lib/targets";

// Every console page reads the session cookie: nothing here may be prerendered.
export const dynamic = "force-dynamic";

/**
 * The gate for the first load of any console page: without a session the page is never
 * rendered. Each page still calls requireAdmin(path) itself, because layouts are not
 * re-run on client-side navigation; that call also redirects with `?next=`.
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  if (!(await getAdminSession())) return <SignInRedirect />;
  // A current target that cannot be used (its token unreadable) leaves the switcher usable.
  const [targets, current] = await Promise.all([
    listTargets(),
    getPlatformTarget().catch(() => undefined),
  ]);
  return (
    <ConsoleShell
      targets={{
        targets: targets.map(({ id, name, kind, environment, fixed, appId }) => ({
          id,
          name,
          kind,
          environment,
          fixed,
          appId,
        })),
        currentId: current?.id,
      }}
    >
      {children}
    </ConsoleShell>
  );
}
