import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { safeNextPath } from "@/lib/auth/safe-next";
import { getAdminSession } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Sign in" };

export type SignInPageProps = { searchParams: Promise<{ next?: string | string[] }> };

export default async function SignInPage({ searchParams }: SignInPageProps) {
  const { next: nextParam } = await searchParams;
  const next = safeNextPath(Array.isArray(nextParam) ? nextParam[0] : nextParam);
  if (await getAdminSession()) redirect(next);
  return (
    <main className="grid min-h-dvh place-items-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center gap-2">
          <span
            aria-hidden="true"
            className="grid size-8 place-items-center rounded-md bg-indigo-600 text-white"
          >
            S
          </span>
          <span className="text-lg font-semibold text-slate-900">Switchboard</span>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <h1 className="text-xl font-semibold text-slate-900">Sign in</h1>
          <p className="mt-1 mb-5 text-sm text-slate-600">
            Enter the administrator password: ADMIN_PASSWORD, or the one printed in the server log
            at first start.
          </p>
          <SignInForm next={next} />
        </div>
      </div>
    </main>
  );
}
