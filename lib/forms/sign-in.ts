import { z } from "zod";

export const signInSchema = z.object({
  password: z
    .string()
    .min(1, "Enter the administrator password.")
    .max(1024, "That is longer than any password we accept."),
  next: z.string().max(2048).optional(),
});

export type SignInInput = z.input<typeof signInSchema>;
