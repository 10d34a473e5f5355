import { resourceLabels } from "@/lib/imports/fields";
import { importResources, type ImportResource } from "@/lib/imports/types";
import { Alert } from "@/components/ui/alert";
import { classNames, focusRing } from "@/components/ui/class-names";

const descriptions: Record<ImportResource, string> = {
  users:
    "Everyone who will chat. Import them first: channels name their members and operators by user id.",
  open_channels: "Channels anyone can enter, like a public room. Operators must already be users.",
  group_channels:
    "Private or public channels with members. Members and operators must already be users.",
  messages:
    "The history: text, file and admin messages, in time order. Their channels and senders must exist first.",
};

export type ResourceStepProps = {
  value: ImportResource | null;
  onChange: (resource: ImportResource) => void;
  /** How many users imports this console has run, or null when it is not known. */
  usersImports: number | null;
  disabled?: boolean;
};

export function ResourceStep({ value, onChange, usersImports, disabled }: ResourceStepProps) {
  return (
    <div className="space-y-4">
      <fieldset disabled={disabled}>
        <legend className="text-sm text-slate-700">
          A migration follows the platform&apos;s order: <strong>users</strong>, then{" "}
          <strong>channels</strong>, then <strong>messages</strong>.
        </legend>
        <div className="mt-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          {importResources.map((resource, position) => (
            <label
              key={resource}
              className={classNames(
                "flex cursor-pointer flex-col gap-1 rounded-lg border p-4 has-[:checked]:border-indigo-500 has-[:checked]:bg-indigo-50/60",
                "border-slate-200 bg-white hover:border-slate-300 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500",
              )}
            >
              <span className="flex items-center gap-2 text-sm font-medium text-slate-900">
                <input
                  type="radio"
                  name="import-resource"
                  value={resource}
                  checked={value === resource}
                  onChange={() => onChange(resource)}
                  className={classNames("size-4 accent-indigo-600", focusRing)}
                />
                {position + 1}. {resourceLabels[resource].plural}
              </span>
              <span className="text-xs text-slate-600">{descriptions[resource]}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {value && value !== "users" && usersImports === 0 && (
        <Alert tone="info" title="No users import yet">
          Channels are created after their users. Import the users first, or make sure they already
          exist on the platform: the plan checks every member and operator before anything is sent.
        </Alert>
      )}
      {value && value !== "users" && usersImports === null && (
        <p className="text-sm text-slate-600">
          Members and operators must exist before their channels: import users first. The plan
          checks them on the platform.
        </p>
      )}
    </div>
  );
}
