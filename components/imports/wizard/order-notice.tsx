import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import type { ImportResource } from "@/lib/imports/types";

/** How many imports of each earlier stage of the migration have not finished (cancelled ones left out). */
export type UnfinishedImports = { users: number; channels: number };

/**
 * The platform's order is users, then channels, then messages: a calm word when an earlier
 * stage is still under way, with the way to the overview. Not a block: the administrator may
 * know the channels are already on the platform, and the plan checks each row anyway.
 */
export function OrderNotice({
  resource,
  unfinished,
}: {
  resource: ImportResource | null;
  unfinished: UnfinishedImports | null;
}) {
  if (!resource || resource === "users" || !unfinished) return null;
  const waitingFor =
    resource === "messages" && unfinished.channels > 0
      ? { stage: "channel", count: unfinished.channels, what: "channels" }
      : unfinished.users > 0
        ? {
            stage: "users",
            count: unfinished.users,
            what: resource === "messages" ? "senders" : "members and operators",
          }
        : null;
  if (!waitingFor) return null;
  const imports = waitingFor.count === 1 ? "import has" : "imports have";
  return (
    <Alert tone="warning" title="An earlier step of the migration has not finished">
      {waitingFor.count} {waitingFor.stage} {imports} not finished yet. You can prepare this import
      now, but run it after them: rows whose {waitingFor.what} are not there yet would fail.{" "}
      <Link href="/imports/migration" className="font-medium underline">
        See the migration overview
      </Link>
    </Alert>
  );
}
