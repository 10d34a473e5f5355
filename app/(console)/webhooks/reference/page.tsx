import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/shell/page-header";
import { Button } from "@/components/ui/button";
import { PayloadReference } from "@/components/webhooks/payload-reference";
import { requireAdmin } from "@/lib/auth/session";
import { getPlatformTarget } from "@/lib/platform";
import { payloadReference } from "@/lib/webhooks/payload-reference";

export const metadata: Metadata = { title: "Webhook payload reference" };

export default async function WebhookReferencePage() {
  await requireAdmin("/webhooks/reference");
  const target = await getPlatformTarget();
  return (
    <>
      <PageHeader
        title="Webhook payload reference"
        description="Every event category: when it fires, its fields, and an example. Every request is a POST with content-type: application/json; receivers must tolerate keys added later."
        actions={
          <Button variant="secondary" asChild>
            <Link href="/webhooks">Back to Webhooks</Link>
          </Button>
        }
      />
      <PayloadReference entries={payloadReference(target.appId)} />
    </>
  );
}
