/** Writes schemas/workflow-definition.schema.json from the zod schema (`npx tsx scripts/write-schema.ts`). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workflowDefinitionJsonSchema } from '../src/engine/analysis';

export const schemaPath = join(__dirname, '..', 'schemas', 'workflow-definition.schema.json');

export function renderSchemaFile(): string {
  return `${JSON.stringify(workflowDefinitionJsonSchema(), null, 2)}\n`;
}

if (require.main === module) {
  writeFileSync(schemaPath, renderSchemaFile());
  console.log(`wrote ${schemaPath}`);
}
