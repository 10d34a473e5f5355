"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { applyActionResult } from "@/lib/actions/action-result";
import { signIn } from "@/lib/actions/auth";
import { signInSchema, type SignInInput } from "@/lib/forms/sign-in";

export type SignInFormProps = {
  /** Where to go after signing in; checked again on the server. */
  next: string;
};

export function SignInForm({ next }: SignInFormProps) {
  const form = useForm<SignInInput>({
    resolver: zodResolver(signInSchema, undefined, { raw: true }),
    defaultValues: { password: "", next },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    // On success the action redirects, so only failures come back.
    const result = await signIn(values);
    applyActionResult(result, form.setError, ["password"]);
  });

  return (
    // POST: a form sent before the page's script has loaded (a slow network, a script that
    // failed) would otherwise go out as GET, with the password in the address and the history.
    <form method="post" onSubmit={onSubmit} noValidate className="space-y-2">
      <TextField
        id="password"
        label="Administrator password"
        type="password"
        autoComplete="current-password"
        autoFocus
        error={errors.password?.message}
        {...form.register("password")}
      />
      {errors.root?.server && <Alert tone="error">{errors.root.server.message}</Alert>}
      <Button type="submit" className="w-full" pending={isSubmitting}>
        Sign in
      </Button>
    </form>
  );
}
