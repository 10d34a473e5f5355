"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { signInPath } from "@/lib/auth/safe-next";

/**
 * What the console layout renders instead of a page when nobody is signed in. A layout does
 * not know the URL, so it cannot redirect to `/sign-in?next=...` itself; the browser does.
 */
export function SignInRedirect() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const search = searchParams.size > 0 ? `?${searchParams.toString()}` : "";
  const target = signInPath(`${pathname}${search}`);

  useEffect(() => {
    router.replace(target);
  }, [router, target]);

  return (
    <main className="grid min-h-dvh place-items-center px-4">
      <p className="text-sm text-slate-600">
        You are signed out.{" "}
        <a href={target} className="font-medium text-indigo-700 underline">
          Sign in to continue
        </a>
        .
      </p>
    </main>
  );
}
