"use client";

import { AlertDialogFrame } from "@/components/ui/alert-dialog-frame";
import { Table } from "@/components/ui/table";
import { targetNature } from "@/lib/forms/targets";
import {
  hasChanges,
  type SettingsField,
  type StaleChoice,
  type StaleField,
  type WebhookSettingsDiff,
  type WebhookSettingsValues,
} from "@/lib/webhooks/settings-diff";

export type SaveSettingsDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** From the platform's settings as read when Save was pressed to what will be sent. */
  diff: WebhookSettingsDiff;
  /** Why nothing would be delivered after the save, if so. */
  warning: string | null;
  /** The address guard would refuse the endpoint's host (private, loopback or link-local). */
  urlWarning: { warning: string; allowed: boolean } | null;
  /** Fields the platform changed since the page loaded them. */
  stale: StaleField[];
  choices: Partial<Record<SettingsField, StaleChoice>>;
  onChoose: (field: SettingsField, choice: StaleChoice) => void;
  pending: boolean;
  onConfirm: () => void;
  /** Where the save goes, named in the confirmation. */
  target: {
    name: string;
    appId: string;
    kind: "sandbox" | "remote";
    environment: "sandbox" | "production";
  };
};

const fieldLabels: Record<SettingsField, string> = {
  enabled: "Enabled",
  url: "URL",
  include_members: "Include members",
  enabled_events: "Categories",
};

function showValue(field: SettingsField, value: WebhookSettingsValues[SettingsField]): string {
  if (typeof value === "boolean") return value ? "on" : "off";
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : value.join(", ");
  return value || "(none)";
}

const onOff = (value: boolean) => (value ? "on" : "off");

/** Shows what a save changes, as a diff, before anything is sent to the platform. */
export function SaveSettingsDialog({
  open,
  onOpenChange,
  diff,
  warning,
  urlWarning,
  stale,
  choices,
  onChoose,
  pending,
  onConfirm,
  target,
}: SaveSettingsDialogProps) {
  const unchosen = stale.filter((item) => !choices[item.field]);
  return (
    <AlertDialogFrame
      open={open}
      onOpenChange={onOpenChange}
      title={`Save webhook settings of ${target.name}?`}
      description={
        <span data-testid="webhook-save-target">
          These changes replace the webhook configuration of {target.name} (application{" "}
          {target.appId}, {targetNature(target)}), as read a moment ago.
        </span>
      }
      confirmLabel="Confirm and save"
      pending={pending}
      confirmDisabled={unchosen.length > 0}
      onConfirm={onConfirm}
      size="lg"
    >
      {stale.length > 0 && (
        <section
          aria-label="Changed on the platform"
          className="mt-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950"
        >
          <p className="font-medium">
            The platform&apos;s settings changed since this page loaded them (another administrator
            or a script). Choose, for each field, which value to keep:
          </p>
          <Table
            className="mt-2"
            density="dense"
            columns={["Field", "When the page loaded", "Now on the platform", "Yours"]}
          >
            {stale.map((item) => (
              <tr
                key={item.field}
                className="align-top"
                aria-label={`${fieldLabels[item.field]} changed on the platform`}
              >
                <th scope="row" className="py-1 pr-2 font-medium">
                  {fieldLabels[item.field]}
                </th>
                <td className="py-1 pr-2 font-mono break-all">
                  {showValue(item.field, item.loaded)}
                </td>
                <ChoiceCell
                  item={item}
                  choice="platform"
                  label={`Keep the platform's ${fieldLabels[item.field]}`}
                  chosen={choices[item.field]}
                  onChoose={onChoose}
                />
                <ChoiceCell
                  item={item}
                  choice="yours"
                  label={`Use my ${fieldLabels[item.field]}`}
                  chosen={choices[item.field]}
                  onChoose={onChoose}
                />
              </tr>
            ))}
          </Table>
          {unchosen.length > 0 && (
            <p role="status" className="mt-2">
              You changed {unchosen.map((item) => fieldLabels[item.field]).join(" and ")} too:
              choose a value to save.
            </p>
          )}
        </section>
      )}
      {urlWarning && (
        <p
          role="status"
          className="mt-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
        >
          {urlWarning.warning}.{" "}
          {urlWarning.allowed
            ? "This console's settings allow it (WEBHOOK_ALLOW_LOOPBACK / WEBHOOK_ALLOW_PRIVATE), but a platform on the internet cannot reach it."
            : "Deliveries to it will be refused unless WEBHOOK_ALLOW_PRIVATE (or WEBHOOK_ALLOW_LOOPBACK) allows it."}
        </p>
      )}
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

type ChoiceCellProps = {
  item: StaleField;
  choice: StaleChoice;
  label: string;
  chosen: StaleChoice | undefined;
  onChoose: (field: SettingsField, choice: StaleChoice) => void;
};

/** One of a stale field's two values, as a radio button that keeps it. */
function ChoiceCell({ item, choice, label, chosen, onChoose }: ChoiceCellProps) {
  return (
    <td className="py-1 pr-2 break-all">
      <label className="flex items-start gap-1.5">
        <input
          type="radio"
          name={`stale-${item.field}`}
          checked={chosen === choice}
          onChange={() => onChoose(item.field, choice)}
          aria-label={label}
          className="mt-0.5 accent-indigo-600"
        />
        <span className="font-mono">
          {showValue(item.field, choice === "platform" ? item.now : item.yours)}
        </span>
      </label>
    </td>
  );
}
