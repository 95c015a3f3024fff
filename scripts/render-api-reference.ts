/**
 * Writes docs/reference/http-api.md, the HTTP API reference of the documentation site, from the API's own
 * OpenAPI document (the one `GET /api/openapi.json` serves, built from the route table in process):
 * `npx tsx scripts/render-api-reference.ts`. `npm run docs` and `npm run docs:build` run it first, and the
 * page is not committed (.gitignore), so the reference cannot fall behind the API.
 * `--stdout` prints instead of writing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../src/host/http/openapi';
import { routes } from '../src/host/http/routes';

export const apiReferencePath = join(__dirname, '..', 'docs', 'reference', 'http-api.md');

interface Schema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly additionalProperties?: Schema | boolean;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly format?: string;
  readonly default?: unknown;
}
interface Parameter {
  readonly in: string;
  readonly name: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: Schema;
}
interface Response {
  readonly description?: string;
  readonly headers?: Readonly<Record<string, { readonly description?: string; readonly required?: boolean }>>;
  readonly content?: Readonly<Record<string, { readonly schema?: Schema }>>;
}
interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly security?: readonly Record<string, unknown>[];
  readonly 'x-signalbox-role'?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly required?: boolean; readonly content?: Readonly<Record<string, { readonly schema?: Schema }>> };
  readonly responses?: Readonly<Record<string, Response>>;
}
interface Document {
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly servers?: readonly { readonly url: string }[];
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, Schema>> };
}

const methods = ['get', 'head', 'put', 'post', 'patch', 'delete'] as const;

/** Markdown text from the document's prose: one line, pipes escaped for tables, and `<` outside code as an entity (the site renders pages through Vue, which would read `<seconds>` as a tag). */
function prose(text: string | undefined, inTable = false): string {
  if (!text) return '';
  const oneLine = text.replace(/\s*\n\s*/g, ' ').trim();
  return oneLine
    .split(/(`[^`]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('')
    .replace(/\|/g, inTable ? '\\|' : '|');
}

/** The anchor of a component schema's heading (VitePress's slug of the heading text). */
function anchorOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** A schema's type in a few words, components linked to their section. */
function typeOf(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) {
    const name = schema.$ref.split('/').at(-1)!;
    return `[${name}](#${anchorOf(name)})`;
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeOf).join(' or ');
  if (schema.allOf) return schema.allOf.map(typeOf).join(' and ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  const type = typeof schema.type === 'string' ? schema.type : schema.type?.join(' or ');
  if (type === 'array') return `array of ${typeOf(schema.items)}`;
  if (type === 'object' && !schema.properties && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    return `map of ${typeOf(schema.additionalProperties)}`;
  }
  if (!type) return 'any JSON';
  return schema.format ? `${type} (${schema.format})` : type;
}

/** The rows of an object's fields, nested objects' fields under a dotted name (`a.b`, `a[].b` in an array, `a.<key>.b` in a map; at most four levels). */
function fieldRows(schema: Schema, prefix = '', depth = 0): string[] {
  const rows: string[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push(`| \`${path}\` | ${prose(typeOf(field), true)} | ${required.has(name) ? 'yes' : ''} | ${prose(field.description, true)} |`);
    const items = field.type === 'array' ? field.items : undefined;
    const values = typeof field.additionalProperties === 'object' && !field.properties ? field.additionalProperties : undefined;
    if (depth < 3 && field.properties) rows.push(...fieldRows(field, `${path}.`, depth + 1));
    if (depth < 3 && items?.properties) rows.push(...fieldRows(items, `${path}[].`, depth + 1));
    if (depth < 3 && values?.properties) rows.push(...fieldRows(values, `${path}.<key>.`, depth + 1));
  }
  return rows;
}

function schemaSection(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (schema.properties) return ['', '| field | type | required | description |', '| --- | --- | --- | --- |', ...fieldRows(schema)];
  return ['', typeOf(schema)];
}

function operationSection(path: string, method: string, operation: Operation): string[] {
  const lines = [`### \`${method.toUpperCase()} /api${path}\``, ''];
  if (operation.summary) lines.push(`**${prose(operation.summary)}.**${operation.description ? ` ${prose(operation.description)}` : ''}`, '');
  else if (operation.description) lines.push(prose(operation.description), '');
  const role = operation['x-signalbox-role'];
  const secured = (operation.security ?? []).length > 0;
  lines.push(secured ? `Needs a function key or a token${role ? ` with the role \`${role}\`` : ''}.` : 'Needs no key.', '');
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    lines.push('| parameter | in | type | required | description |', '| --- | --- | --- | --- | --- |');
    for (const parameter of parameters) {
      lines.push(
        `| \`${parameter.name}\` | ${parameter.in} | ${prose(typeOf(parameter.schema), true)} | ${parameter.required ? 'yes' : ''} | ${prose(parameter.description ?? parameter.schema?.description, true)} |`,
      );
    }
    lines.push('');
  }
  for (const [type, body] of Object.entries(operation.requestBody?.content ?? {})) {
    lines.push(`Request body (\`${type}\`${operation.requestBody?.required ? '' : ', optional'}):`, ...schemaSection(body.schema), '');
  }
  lines.push('| status | answer | body |', '| --- | --- | --- |');
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const headers = Object.keys(response.headers ?? {});
    const bodies = Object.entries(response.content ?? {}).map(([type, content]) => `${typeOf(content.schema)} (\`${type}\`)`);
    const headerNote = headers.length > 0 ? ` Headers: ${headers.map((name) => `\`${name}\``).join(', ')}.` : '';
    lines.push(`| ${status} | ${prose(response.description, true)}${headerNote} | ${prose(bodies.join(', '), true)} |`);
  }
  lines.push('');
  return lines;
}

/** The reference page's markdown for an OpenAPI document. */
export function renderApiReference(document: Document): string {
  const tags = document.tags ?? [];
  const operations = Object.entries(document.paths).flatMap(([path, item]) => methods.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method]! })));
  const lines = [
    '<!-- Generated by scripts/render-api-reference.ts from the OpenAPI document (npm run docs:build runs it): do not edit. -->',
    '',
    '# HTTP API',
    '',
    `${prose(document.info.title)}, version ${document.info.version}: every route, rendered from the OpenAPI 3.1 document the server serves at \`GET /api/openapi.json\` (the same document the typed client is generated from). ${prose(document.info.description)}`,
    '',
    `The base URL is \`${document.servers?.[0]?.url ?? '/api'}\` on the server: \`http://127.0.0.1:7071/api\` locally. An error's body is a [Problem](#problem), naming each invalid field by its JSON path. Every \`GET\` also answers \`HEAD\`.`,
    '',
  ];
  for (const tag of [...tags.map((known) => known.name), ...new Set(operations.flatMap(({ operation }) => operation.tags ?? []))].filter((name, index, all) => all.indexOf(name) === index)) {
    const members = operations.filter(({ operation }) => operation.tags?.includes(tag));
    if (members.length === 0) continue;
    const description = tags.find((known) => known.name === tag)?.description;
    lines.push(`## ${tag[0]!.toUpperCase()}${tag.slice(1)}`, '');
    if (description) lines.push(prose(description), '');
    for (const { path, method, operation } of members) lines.push(...operationSection(path, method, operation));
  }
  const untagged = operations.filter(({ operation }) => !operation.tags?.length);
  if (untagged.length > 0) {
    lines.push('## Other routes', '');
    for (const { path, method, operation } of untagged) lines.push(...operationSection(path, method, operation));
  }
  lines.push('## Schemas', '', 'The bodies named above.', '');
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    lines.push(`### ${name}`, '');
    if (schema.description) lines.push(prose(schema.description), '');
    const section = schemaSection(schema);
    if (section.length > 0) lines.push(...section.slice(1), '');
  }
  lines.push('## Next', '', '- [The OpenAPI document and a typed client](../guides/typed-client.md)', '- [Definition schema](./definition-schema.md)', '- [Command line reference](./cli.md)', '');
  return lines.join('\n');
}

if (require.main === module) {
  const page = renderApiReference(buildOpenApiDocument(routes) as unknown as Document);
  if (process.argv.includes('--stdout')) process.stdout.write(page);
  else {
    writeFileSync(apiReferencePath, page);
    console.log(`wrote ${apiReferencePath}`);
  }
}
