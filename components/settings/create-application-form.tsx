"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { applyActionResult } from "@/lib/actions/action-result";
import { createSandboxApplication } from "@/lib/actions/settings";
import {
  createApplicationSchema,
  type CreateApplicationInput,
} from "@/lib/schemas/sandbox-applications";

export function CreateApplicationForm() {
  const [created, setCreated] = useState<{ id: string; baseUrl: string } | null>(null);
  const form = useForm<CreateApplicationInput>({
    resolver: zodResolver(createApplicationSchema, undefined, { raw: true }),
    defaultValues: { id: "", name: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setCreated(null);
    const result = await createSandboxApplication(values);
    if (applyActionResult(result, form.setError, ["id", "name"])) {
      form.reset();
      setCreated(result.data);
    }
  });

  return (
    <form
      onSubmit={onSubmit}
      noValidate
      aria-label="Create a sandbox application"
      className="space-y-1"
    >
      <div className="grid grid-cols-1 gap-x-4 sm:grid-cols-2">
        <TextField
          id="new-app-id"
          label="Application id"
          inputClassName="font-mono"
          placeholder="import-rehearsal"
          autoComplete="off"
          spellCheck={false}
          hint="Letters, digits, _ and -; at most 64. It becomes part of the base URL."
          error={errors.id?.message}
          {...form.register("id")}
        />
        <TextField
          id="new-app-name"
          label="Name"
          placeholder="Import rehearsal"
          autoComplete="off"
          hint="Up to 80 characters, for you to tell applications apart."
          error={errors.name?.message}
          {...form.register("name")}
        />
      </div>
      {errors.root?.server && <Alert tone="error">{errors.root.server.message}</Alert>}
      {created && (
        <Alert tone="success" title={`Application ${created.id} created`}>
          It answers at <code className="font-mono break-all">{created.baseUrl}</code> with its own
          API token (listed above).
        </Alert>
      )}
      <div className="pt-2">
        <Button type="submit" pending={isSubmitting}>
          Create application
        </Button>
      </div>
    </form>
  );
}
