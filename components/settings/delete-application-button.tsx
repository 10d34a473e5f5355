"use client";

import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useApplicationMutations } from "./settings-queries";

export type DeleteApplicationButtonProps = { appId: string; name: string };

export function DeleteApplicationButton({ appId, name }: DeleteApplicationButtonProps) {
  const { deleteApplication } = useApplicationMutations(appId);
  return (
    <ConfirmDialog
      title={`Delete ${name}?`}
      description={
        <p>
          The application <code className="font-mono">{appId}</code> and everything in it (users,
          channels, messages, webhook deliveries) are deleted for good. Its API token stops working
          at once.
        </p>
      }
      confirmLabel="Delete application"
      onConfirm={deleteApplication}
      trigger={
        <Button
          variant="ghost"
          size="sm"
          className="text-red-700 hover:bg-red-50"
          aria-label={`Delete application ${appId}`}
        >
          Delete
        </Button>
      }
    />
  );
}
