"use client";

import "./globals.css";

export type GlobalErrorProps = { error: Error & { digest?: string }; reset: () => void };

/** Replaces the root layout when it fails itself, so it renders its own <html>. */
export default function GlobalError({ error, reset }: GlobalErrorProps) {
  return (
    <html lang="en">
      <body className="grid min-h-dvh place-items-center bg-slate-50 px-4 font-sans">
        <main className="max-w-md text-center">
          <h1 className="text-2xl font-semibold text-slate-900">
            Switchboard could not start this page
          </h1>
          <p className="mt-2 text-sm text-slate-600">
            The server log has the details{error.digest ? ` (reference ${error.digest})` : ""}.
          </p>
          <button
            type="button"
            onClick={reset}
            className="mt-6 rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-indigo-500 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2 focus-visible:outline-none"
          >
            Try again
          </button>
        </main>
      </body>
    </html>
  );
}
