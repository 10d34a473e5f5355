"use client";

import { AlertDialogFrame } from "@/components/ui/alert-dialog-frame";
import { hasChanges, type WebhookSettingsDiff } from "@/lib/webhooks/settings-diff";

export type SaveSettingsDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  diff: WebhookSettingsDiff;
  /** Why nothing would be delivered after the save, if so. */
  warning: string | null;
  pending: boolean;
  onConfirm: () => void;
};

const onOff = (value: boolean) => (value ? "on" : "off");

/** Shows what a save changes, as a diff, before anything is sent to the platform. */
export function SaveSettingsDialog({
  open,
  onOpenChange,
  diff,
  warning,
  pending,
  onConfirm,
}: SaveSettingsDialogProps) {
  return (
    <AlertDialogFrame
      open={open}
      onOpenChange={onOpenChange}
      title="Save webhook settings?"
      description="These changes replace the platform's webhook configuration."
      confirmLabel="Confirm and save"
      pending={pending}
      onConfirm={onConfirm}
      size="lg"
    >
      <dl className="mt-4 space-y-2 text-sm" aria-label="Changes">
        {diff.enabled && (
          <DiffRow label="Enabled">
            <Old>{onOff(diff.enabled.from)}</Old> → <New>{onOff(diff.enabled.to)}</New>
          </DiffRow>
        )}
        {diff.url && (
          <DiffRow label="URL">
            <Old>{diff.url.from || "(none)"}</Old> → <New>{diff.url.to || "(none)"}</New>
          </DiffRow>
        )}
        {diff.includeMembers && (
          <DiffRow label="Include members">
            <Old>{onOff(diff.includeMembers.from)}</Old> →{" "}
            <New>{onOff(diff.includeMembers.to)}</New>
          </DiffRow>
        )}
        {diff.subscribesToAll && (
          <DiffRow label="Categories">
            <New>All events (*)</New>: the platform subscribes to every category it lists.
          </DiffRow>
        )}
        {diff.added.length > 0 && (
          <DiffRow label={`Categories added (${diff.added.length})`}>
            <CategoryList categories={diff.added} sign="+" className="text-emerald-800" />
          </DiffRow>
        )}
        {diff.removed.length > 0 && (
          <DiffRow label={`Categories removed (${diff.removed.length})`}>
            <CategoryList categories={diff.removed} sign="−" className="text-red-800" />
          </DiffRow>
        )}
        {!hasChanges(diff) && (
          <p className="text-slate-600">Nothing changes; saving sends the same settings again.</p>
        )}
      </dl>
      {warning && (
        <p
          role="status"
          className="mt-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
        >
          {warning}
        </p>
      )}
    </AlertDialogFrame>
  );
}

function DiffRow({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="font-medium text-slate-800">{label}</dt>
      <dd className="mt-0.5 break-all text-slate-700">{children}</dd>
    </div>
  );
}

function Old({ children }: { children: React.ReactNode }) {
  return <del className="rounded bg-red-50 px-1 font-mono text-red-800">{children}</del>;
}

function New({ children }: { children: React.ReactNode }) {
  return (
    <ins className="rounded bg-emerald-50 px-1 font-mono text-emerald-800 no-underline">
      {children}
    </ins>
  );
}

function CategoryList({
  categories,
  sign,
  className,
}: {
  categories: string[];
  sign: string;
  className: string;
}) {
  return (
    <ul className={`font-mono text-xs ${className}`}>
      {categories.map((category) => (
        <li key={category}>
          <span aria-hidden="true">{sign} </span>
          {category}
        </li>
      ))}
    </ul>
  );
}
