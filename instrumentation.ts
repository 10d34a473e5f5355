export async function register(): Promise<void> {
  // The database is never opened while `next build` collects pages, and PGlite needs Node.
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build")
    return;
  const { startConsole } = await import("@/lib/startup");
  // Exits the process (code 1, naming the cause) when the console cannot start.
  await startConsole();
}
