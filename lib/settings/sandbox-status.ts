import "server-only";
import { getDatabaseHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import { getSandboxApp, listApplications } from "@/lib/sandbox";

export type SandboxStatus =
  | {
      ok: true;
      applications: number;
      defaultAppId: string;
      storage: "pglite" | "postgres";
      location: string;
    }
  | { ok: false; message: string };

/** For the overview: whether the embedded sandbox is up, and what it holds. */
export async function getSandboxStatus(): Promise<SandboxStatus> {
  try {
    const db = await getSandboxApp().ready();
    const handle = await getDatabaseHandle();
    const applications = await listApplications(db);
    return {
      ok: true,
      applications: applications.length,
      defaultAppId: env().SANDBOX_APP_ID,
      storage: handle.kind,
      location: handle.location,
    };
  } catch (error) {
    console.error("[overview] sandbox status failed:", error);
    return {
      ok: false,
      message: "The sandbox's database could not be opened. The server log says why.",
    };
  }
}
