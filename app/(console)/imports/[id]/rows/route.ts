import { getDb } from "@/lib/db/client";
import { withAdmin } from "@/lib/imports/jobs/http";
import { reportPage } from "@/lib/imports/jobs/report";
import type { RowState } from "@/lib/imports/types";

export const dynamic = "force-dynamic";

const states: readonly RowState[] = ["pending", "created", "existed", "failed", "invalid", "excluded"];

/** A page of the per-row report: `?state=failed&after=<row index>&limit=100`. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  const state = query.get("state") as RowState | null;
  const after = Number(query.get("after") ?? "-1");
  const limit = Number(query.get("limit") ?? "100");
  if (state !== null && !states.includes(state)) {
    return Response.json({ error: `state must be one of ${states.join(", ")}.` }, { status: 400 });
  }
  if (!Number.isInteger(after) || !Number.isInteger(limit) || limit < 1) {
    return Response.json({ error: "after and limit must be whole numbers." }, { status: 400 });
  }
  return withAdmin(async () =>
    Response.json(await reportPage(await getDb(), id, { state: state ?? undefined, afterIndex: after, limit }), {
      headers: { "cache-control": "no-store" },
    }),
  );
}
