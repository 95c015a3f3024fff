/**
 * @module Where a text stops being JSON, without quoting it. JSON.parse's messages quote the text around
 * the error ("Unexpected token 'D', "DATABASE_P"... is not valid JSON"), and the text may be a file of
 * secrets given by mistake (`--context @.env`, a symlink): the CLI says only that it is not JSON, and at
 * which line and column.
 */

/** 1-based, as editors count; the column in UTF-16 code units. */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

/** The position of the first character that makes `text` not JSON (the end, for a text cut short). */
export function jsonSyntaxErrorPosition(text: string): TextPosition {
  return positionOf(text, firstErrorOffset(text));
}

/** "line 3, column 23": for a message about a text that is not JSON. */
export function describeJsonSyntaxError(text: string): string {
  const { line, column } = jsonSyntaxErrorPosition(text);
  return `line ${line}, column ${column}`;
}

function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset; index += 1) {
    if (text[index] === '\n') {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class SyntaxAt {
  constructor(readonly offset: number) {}
}

/** A recursive-descent reader of RFC 8259 JSON that stops at the first error and reports its offset. */
function firstErrorOffset(text: string): number {
  // JSON.parse refuses a byte order mark (readFileSync keeps it).
  if (text.charCodeAt(0) === 0xfeff) return 0;
  let at = 0;
  const fail = (offset = at): never => {
    throw new SyntaxAt(Math.min(offset, text.length));
  };
  const whitespace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const literal = (word: string) => {
    for (const character of word) {
      if (text[at] !== character) fail();
      at += 1;
    }
  };
  const string = () => {
    at += 1; // the opening quote
    for (;;) {
      if (at >= text.length) fail();
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at += 1;
        return;
      }
      if (code < 0x20) fail();
      if (code === 0x5c) {
        const escape = text[at + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) fail(at + 1);
          at += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) at += 2;
        else fail(at + 1);
      } else at += 1;
    }
  };
  const digits = () => {
    const start = at;
    while (at < text.length && text[at]! >= '0' && text[at]! <= '9') at += 1;
    if (at === start) fail();
  };
  const number = () => {
    if (text[at] === '-') at += 1;
    if (text[at] === '0') at += 1;
    else digits();
    if (text[at] === '.') {
      at += 1;
      digits();
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at += 1;
      if (text[at] === '+' || text[at] === '-') at += 1;
      digits();
    }
  };
  const value = (): void => {
    whitespace();
    const character = text[at];
    if (character === '{') {
      at += 1;
      whitespace();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      for (;;) {
        whitespace();
        if (text[at] !== '"') fail();
        string();
        whitespace();
        if (text[at] !== ':') fail();
        at += 1;
        value();
        whitespace();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          return;
        } else fail();
      }
    }
    if (character === '[') {
      at += 1;
      whitespace();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      for (;;) {
        value();
        whitespace();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          return;
        } else fail();
      }
    }
    if (character === '"') return string();
    if (character === 't') return literal('true');
    if (character === 'f') return literal('false');
    if (character === 'n') return literal('null');
    if (character === '-' || (character !== undefined && character >= '0' && character <= '9')) return number();
    fail();
  };
  try {
    value();
    whitespace();
    if (at < text.length) fail();
    // JSON.parse refused a text this reader accepts: say where it ends rather than nothing.
    return text.length;
  } catch (error) {
    if (error instanceof SyntaxAt) return error.offset;
    throw error;
  }
}
