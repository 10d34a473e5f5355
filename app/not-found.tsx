import Link from "next/link";
import { Button } from "@/components/ui/button";

export default function NotFound() {
  return (
    <main className="grid min-h-dvh place-items-center px-4">
      <div className="max-w-md text-center">
        <p className="text-sm font-semibold text-indigo-600">404</p>
        <h1 className="mt-2 text-2xl font-semibold text-slate-900">There is no page here</h1>
        <p className="mt-2 text-sm text-slate-600">
          The address may be mistyped, or the page may have moved. The console&apos;s pages are in
          its navigation.
        </p>
        <Button asChild className="mt-6">
          <Link href="/">Back to the overview</Link>
        </Button>
      </div>
    </main>
  );
}
