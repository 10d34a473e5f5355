import type { Metadata } from "next";
import { ExportFlow } from "@/components/imports/export/export-flow";
import { PageHeader } from "@/components/shell/page-header";
import { appendImportRows, createImportJob, finishImportUpload } from "@/lib/actions/imports";
import { requireAdmin } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Import an export" };

export default async function ImportExportPage() {
  await requireAdmin("/imports/export");
  return (
    <>
      <PageHeader
        title="Import an export"
        description="Migrate a community from the export it already has: a Slack workspace export, DiscordChatExporter JSON, or a Mattermost bulk export. It becomes the same users, group channels and messages imports as files would, planned before anything is sent."
      />
      <ExportFlow actions={{ createImportJob, appendImportRows, finishImportUpload }} />
    </>
  );
}
