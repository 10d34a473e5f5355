"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { useHydratedMarker } from "@/components/ui/use-hydrated-marker";
import { applyActionResult } from "@/lib/actions/action-result";
import { setSandboxRateLimit } from "@/lib/actions/settings";
import { rateLimitSchema, type RateLimitInput } from "@/lib/schemas/sandbox-applications";
import type { SandboxApplicationView } from "@/lib/sandbox";

export type RateLimitFormProps = {
  appId: string;
  rateLimit: SandboxApplicationView["rateLimit"];
};

const fields = [
  { name: "get", label: "GET per second" },
  { name: "write", label: "Writes per second" },
  { name: "migration", label: "Migrations per second" },
] as const;

/** Per-application limits; blank means no limit of the application's own (SANDBOX_RATE_LIMIT applies). */
export function RateLimitForm({ appId, rateLimit }: RateLimitFormProps) {
  const [saved, setSaved] = useState(false);
  const formRef = useHydratedMarker<HTMLFormElement>();
  const form = useForm<RateLimitInput>({
    // raw: the action gets the same strings and parses them with the same schema.
    resolver: zodResolver(rateLimitSchema, undefined, { raw: true }),
    defaultValues: {
      appId,
      get: rateLimit?.get?.toString() ?? "",
      write: rateLimit?.write?.toString() ?? "",
      migration: rateLimit?.migration?.toString() ?? "",
    },
  });
  const { errors, isSubmitting, isDirty } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setSaved(false);
    const result = await setSandboxRateLimit(values);
    if (applyActionResult(result, form.setError, ["get", "write", "migration"])) {
      form.reset(values);
      setSaved(true);
    }
  });

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate aria-label={`Rate limit of ${appId}`}>
      <div className="flex flex-wrap items-start gap-3">
        {fields.map(({ name, label }) => (
          <TextField
            key={name}
            id={`rate-${name}-${appId}`}
            label={label}
            className="w-40"
            labelClassName="text-xs text-slate-600"
            inputMode="decimal"
            placeholder="No limit"
            error={errors[name]?.message}
            {...form.register(name, { onChange: () => setSaved(false) })}
          />
        ))}
        <Button
          type="submit"
          variant="secondary"
          className="mt-5"
          pending={isSubmitting}
          disabled={!isDirty}
        >
          Save limits
        </Button>
      </div>
      {errors.root?.server && (
        <p role="alert" className="text-sm text-red-700">
          {errors.root.server.message}
        </p>
      )}
      {saved && (
        <p role="status" className="text-sm text-emerald-700">
          Saved. The new limits apply from the next request.
        </p>
      )}
    </form>
  );
}
