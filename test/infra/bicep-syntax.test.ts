/**
 * Syntax check of every .bicep file under infra/bicep with tree-sitter-bicep (no Bicep compiler installs
 * here). A file fails on any ERROR or MISSING node, reported as path:line:column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bicepFiles, parseBicep, parseBicepSources, repoRoot, syntaxProblems } from './bicep';

const files = bicepFiles();
const trees = new Map(parseBicepSources(files.map((file) => readFileSync(join(repoRoot, file), 'utf8'))).map((tree, i) => [files[i]!, tree]));

describe('Bicep syntax (tree-sitter-bicep)', () => {
  it('finds main.bicep and its modules', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'infra/bicep/main.bicep',
        'infra/bicep/modules/durable-task-scheduler.bicep',
        'infra/bicep/modules/functionapp.bicep',
        'infra/bicep/modules/identity.bicep',
        'infra/bicep/modules/monitoring.bicep',
        'infra/bicep/modules/rbac.bicep',
        'infra/bicep/modules/storage.bicep',
      ]),
    );
  });

  it.each(files)('%s parses without ERROR or MISSING nodes', (file) => {
    const tree = trees.get(file)!;
    const report = syntaxProblems(tree).map((p) => `${file}:${p.line}:${p.column} ${p.kind} ${JSON.stringify(p.text)}`);
    expect(report).toEqual([]);
    expect(tree.rootNode.type).toBe('infrastructure');
    expect(tree.rootNode.namedChildCount).toBeGreaterThan(0);
  });

  describe('the checker itself', () => {
    it('reports an unclosed object as MISSING or ERROR with its position', () => {
      const problems = syntaxProblems(parseBicep("param a string\nresource r 'A/b@2024-01-01' = {\n  name: 'x'\n"));
      expect(problems.length).toBeGreaterThan(0);
      expect(problems[0]!.line).toBeGreaterThanOrEqual(2);
    });

    it('reports a stray token with its line and column', () => {
      const problems = syntaxProblems(parseBicep("param a string\nvar b = 'x' ) \n"));
      expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'ERROR', line: 2 })]));
      expect(problems[0]!.column).toBeGreaterThan(1);
    });

    it('accepts the constructs the templates use (decorators, loops, conditions, interpolated keys)', () => {
      const source = [
        "targetScope = 'subscription'",
        "@metadata({ azd: { type: 'location' } })",
        'param location string',
        '@allowed([\n  512\n  2048\n])\nparam memory int = 2048',
        'var v = memory > 0 ? { a: { b: memory } } : {}',
        "resource r 'A/b@2024-01-01' = [for n in ['x', 'y']: {\n  name: n\n  identity: {\n    '${location}': {}\n  }\n}]",
        "module m 'm.bicep' = if (memory > 0) {\n  name: 'm'\n  params: {\n    a: union(v, { c: 1 })\n  }\n  dependsOn: [\n    r\n  ]\n}",
        "output o string = 'https://${m.outputs.host}/api'",
      ].join('\n');
      expect(syntaxProblems(parseBicep(source))).toEqual([]);
    });
  });
});
