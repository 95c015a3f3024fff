/** @module zod building blocks for condition and action schemas: expressions and templates that must compile. */
import { z } from 'zod';
import { compileExpression, parseTemplate } from '../expressions/expressions';

/** A JSONata expression; compiled at validation time so a malformed one rejects the definition. */
export const expressionSchema = z
  .string()
  .min(1)
  .superRefine((source, ctx) => {
    try {
      compileExpression(source);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/** A string with `{{expression}}` placeholders; every placeholder must compile. */
export const templateSchema = z.string().superRefine((template, ctx) => {
  try {
    parseTemplate(template);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** Fields every condition and action may carry. */
export const stepBaseShape = {
  id: z.string().min(1).max(128).optional(),
};

/** `authentication: { managedIdentity: "<resource>" }` on external-service steps. */
export const authenticationSchema = z.strictObject({ managedIdentity: z.string().min(1).max(512) });

export const httpUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });
