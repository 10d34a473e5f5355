"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useId, type ReactNode } from "react";
import { Controller, useForm, useWatch } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { TextField } from "@/components/ui/text-field";
import {
  choiceExplanations,
  exportChoicesSchema,
  type ExportChoices as Choices,
} from "@/lib/imports/export-flow";
import type { ExportFormat } from "@/lib/imports/sources/types";

export type ExportChoicesProps = {
  format: ExportFormat;
  defaults: Choices;
  /** The choices were changed since the forecast: it must be made again. */
  onChange: () => void;
  onForecast: (choices: Choices) => void;
  pending: boolean;
  /** The imports are being or have been created: the choices are settled. */
  locked: boolean;
};

function Choice({
  title,
  explanation,
  children,
}: {
  title: string;
  explanation: string;
  children?: ReactNode;
}) {
  return (
    <li className="space-y-1.5 py-3">
      <p className="text-sm font-medium text-slate-900">{title}</p>
      <p className="text-sm text-slate-600">{explanation}</p>
      {children}
    </li>
  );
}

/** The choices of issue 24, item 2(b): each with its default and its sentence. */
export function ExportChoices({
  format,
  defaults,
  onChange,
  onForecast,
  pending,
  locked,
}: ExportChoicesProps) {
  const id = useId();
  const form = useForm<Choices>({
    resolver: zodResolver(exportChoicesSchema),
    defaultValues: defaults,
    mode: "onChange",
  });
  const { errors } = form.formState;
  const files = useWatch({ control: form.control, name: "files" });
  const box = (
    name: "supergroups" | "publicJoinable" | "freezeArchived" | "deactivate",
    label: string,
  ) => (
    <div className="flex items-center gap-2">
      <Controller
        control={form.control}
        name={name}
        render={({ field }) => (
          <Checkbox
            id={`${id}-${name}`}
            checked={field.value}
            onCheckedChange={(checked) => {
              field.onChange(checked === true);
              onChange();
            }}
          />
        )}
      />
      <Label htmlFor={`${id}-${name}`}>{label}</Label>
    </div>
  );
  const select = (
    name: "notices" | "bots" | "mentions" | "files",
    label: string,
    options: Array<[string, string]>,
  ) => (
    <div className="flex flex-wrap items-center gap-2">
      <Label htmlFor={`${id}-${name}`}>{label}</Label>
      <Select id={`${id}-${name}`} className="w-auto" {...form.register(name, { onChange })}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </Select>
    </div>
  );

  return (
    <form
      noValidate
      aria-label="Choices"
      onSubmit={form.handleSubmit(onForecast)}
      className="space-y-2"
    >
      <ul className="divide-y divide-slate-100">
        <Choice title="Channels" explanation={choiceExplanations.channels}>
          {box("publicJoinable", "Anyone may join the public channels")}
        </Choice>
        <Choice title="Large channels" explanation={choiceExplanations.supergroups}>
          {box("supergroups", "Over 100 members: a supergroup")}
        </Choice>
        <Choice title="DMs and group DMs" explanation={choiceExplanations.directMessages} />
        <Choice title="Archived channels" explanation={choiceExplanations.freezeArchived}>
          {box("freezeArchived", "Freeze archived channels after their history")}
        </Choice>
        <Choice title="Notices" explanation={choiceExplanations.notices}>
          {select("notices", "Join, leave and topic notices", [
            ["admin", "Admin messages"],
            ["skip", "Left out"],
          ])}
        </Choice>
        <Choice title="Bots" explanation={choiceExplanations.bots}>
          {select("bots", "Bots", [
            ["users", "Users marked as bots"],
            ["skip", "Left out, with their messages"],
          ])}
        </Choice>
        <Choice title="Deleted and deactivated people" explanation={choiceExplanations.deactivate}>
          {box("deactivate", "Deactivate them at the end")}
        </Choice>
        <Choice title="Ids and names" explanation={choiceExplanations.ids} />
        <Choice
          title="Files"
          explanation={
            format === "slack"
              ? choiceExplanations.files
              : choiceExplanations.files.replace(/; Slack's.*$/, ".")
          }
        >
          {select("files", "File URLs", [
            ["keep", "Kept as they are"],
            ["rewrite", "Rewritten by a prefix"],
          ])}
          {files === "rewrite" && (
            <div className="grid gap-2 sm:grid-cols-2">
              <TextField
                id={`${id}-from`}
                label="Replace the beginning"
                placeholder={
                  format === "slack"
                    ? "https://files.slack.com/files-pri/"
                    : "https://cdn.discordapp.com/"
                }
                {...form.register("fileUrlFrom", { onChange })}
                error={errors.fileUrlFrom?.message}
              />
              <TextField
                id={`${id}-to`}
                label="With"
                placeholder="https://files.example.com/slack/"
                {...form.register("fileUrlTo", { onChange })}
                error={errors.fileUrlTo?.message}
              />
            </div>
          )}
        </Choice>
        <Choice title="Mentions" explanation={choiceExplanations.mentions}>
          {select("mentions", "Mentions", [
            ["readable", "Readable @nickname text"],
            ["as-is", "The text as it is"],
          ])}
        </Choice>
      </ul>
      <Button type="submit" pending={pending} disabled={locked}>
        Show the forecast
      </Button>
    </form>
  );
}
