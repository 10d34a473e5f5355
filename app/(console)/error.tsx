"use client";

import Link from "next/link";
import { useEffect } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

export type ConsoleErrorProps = { error: Error & { digest?: string }; reset: () => void };

export default function ConsoleError({ error, reset }: ConsoleErrorProps) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-semibold text-slate-900">This page could not be shown</h1>
      <Alert tone="error" className="mt-4">
        Something failed while loading it. The details are in the server log
        {error.digest ? (
          <>
            {" "}
            under the reference <code className="font-mono">{error.digest}</code>
          </>
        ) : null}
        .
      </Alert>
      <div className="mt-6 flex gap-2">
        <Button onClick={reset}>Try again</Button>
        <Button variant="secondary" asChild>
          <Link href="/">Back to the overview</Link>
        </Button>
      </div>
    </div>
  );
}
