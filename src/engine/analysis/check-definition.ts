/**
 * @module Validation and analysis together, as `POST /api/workflows/validate` and the CLI's offline
 * `validate` answer: errors block storing a definition, warnings never do. Warnings need a valid
 * definition (the graph of one that names missing states is not well defined), so an invalid one gets
 * its errors and no warnings.
 */
import { validateDefinition } from './definition-validation';
import { DefinitionInvalidError, type ValidationIssue } from '../model/errors';
import type { Registry } from '../steps/registry';
import { analyzeDefinition, type DefinitionWarning } from './analyze-definition';

export interface DefinitionCheck {
  readonly valid: boolean;
  readonly errors: readonly ValidationIssue[];
  readonly warnings: readonly DefinitionWarning[];
}

export function checkDefinition(input: unknown, registry?: Registry): DefinitionCheck {
  try {
    const definition = validateDefinition(input, registry);
    return { valid: true, errors: [], warnings: analyzeDefinition(definition) };
  } catch (error) {
    if (error instanceof DefinitionInvalidError) return { valid: false, errors: error.issues, warnings: [] };
    throw error;
  }
}
