import { getDb } from "@/lib/db/client";
import { withAdmin } from "@/lib/imports/jobs/http";
import { jobProgress } from "@/lib/imports/jobs/report";

export const dynamic = "force-dynamic";

/** The job's status, counts and pace; the job page polls it while the job runs. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return withAdmin(async () => Response.json(await jobProgress(await getDb(), id), { headers: { "cache-control": "no-store" } }));
}
