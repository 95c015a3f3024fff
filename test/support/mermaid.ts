/**
 * Parses Mermaid text with the `mermaid` package itself (see mermaid-parse.mjs for why in a child
 * process). Texts are parsed in one batch: loading mermaid and jsdom takes seconds.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

export interface ParsedStateDiagram {
  readonly type: string;
  /** Labels decoded as mermaid draws them. */
  readonly states: { id: string; descriptions: string[]; classes: string[] }[];
  readonly relations: { from: string; to: string; label: string }[];
  /** The HTML elements (tag names) the labels would make when drawn: none, for labels that are text. */
  readonly elements: string[];
}

export function parseMermaid(texts: readonly string[]): Promise<ParsedStateDiagram[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(__dirname, 'mermaid-parse.mjs')], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const results = JSON.parse(stdout) as (ParsedStateDiagram | { error: string })[];
      const failed = results.findIndex((result) => 'error' in result);
      if (failed >= 0) return reject(new Error(`mermaid refused diagram ${failed}: ${(results[failed] as { error: string }).error}\n${texts[failed]}`));
      resolve(results as ParsedStateDiagram[]);
    });
    child.stdin!.end(JSON.stringify(texts));
  });
}
