/**
 * @module The filter language of instance searches, parsed by hand (recursive descent) into a tree
 * whose every node knows the position it came from, so errors point at it
 * (`filter: position 17: unknown field "amout"`). Grammar (README "Finding instances"):
 *
 *   filter     = or
 *   or         = and { "or" and }
 *   and        = unary { "and" unary }
 *   unary      = "not" unary | "(" or ")" | condition
 *   condition  = field ( op value | "between" value "and" value | "in" "(" value { "," value } ")" | "startsWith" string )
 *   op         = "=" | "!=" | "<" | "<=" | ">" | ">="
 *   value      = string | number | "true" | "false"
 *   string     = "'" { any character but "'", or "''" for one "'" } "'"
 *   number     = [ "-" ] digits [ "." digits ] [ ( "e" | "E" ) [ "+" | "-" ] digits ]
 *   field      = letter { letter | digit | "_" }
 *
 * Words are case-sensitive. Bounded: at most MAX_FILTER_LENGTH characters, MAX_FILTER_DEPTH nested
 * levels, MAX_FILTER_CONDITIONS conditions and MAX_IN_VALUES values in one `in`; past any, a 400.
 */
import { ValidationError } from '../model/errors';

export const MAX_FILTER_LENGTH = 2048;
export const MAX_FILTER_DEPTH = 16;
export const MAX_FILTER_CONDITIONS = 32;
export const MAX_IN_VALUES = 50;

export type Literal = string | number | boolean;
export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type FilterNode =
  | { readonly kind: 'and' | 'or'; readonly items: readonly FilterNode[] }
  | { readonly kind: 'not'; readonly item: FilterNode }
  | { readonly kind: 'compare'; readonly field: string; readonly operator: ComparisonOperator; readonly value: Literal; readonly position: number }
  | { readonly kind: 'between'; readonly field: string; readonly low: Literal; readonly high: Literal; readonly position: number }
  | { readonly kind: 'in'; readonly field: string; readonly values: readonly Literal[]; readonly position: number }
  | { readonly kind: 'startsWith'; readonly field: string; readonly prefix: string; readonly position: number };

export type ConditionNode = Extract<FilterNode, { field: string }>;

/** A 400 naming the parameter and the position (1-based) in it. */
export function filterError(parameter: string, position: number, message: string): ValidationError {
  const detail = `position ${position}: ${message}`;
  return new ValidationError(`${parameter}: ${detail}`, [{ path: parameter, message: detail }]);
}

type Token =
  | { readonly type: 'word'; readonly text: string; readonly position: number }
  | { readonly type: 'string'; readonly value: string; readonly position: number }
  | { readonly type: 'number'; readonly value: number; readonly text: string; readonly position: number }
  | { readonly type: 'symbol'; readonly text: string; readonly position: number }
  | { readonly type: 'end'; readonly position: number };

const SYMBOLS = ['<=', '>=', '!=', '=', '<', '>', '(', ')', ','];
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const WORD = /[A-Za-z][A-Za-z0-9_]*/y;

function tokenize(source: string, parameter: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index]!;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      index++;
      continue;
    }
    const position = index + 1;
    if (char === "'") {
      let value = '';
      index++;
      for (;;) {
        if (index >= source.length) throw filterError(parameter, position, 'the string is not closed');
        if (source[index] === "'") {
          if (source[index + 1] === "'") {
            value += "'";
            index += 2;
            continue;
          }
          index++;
          break;
        }
        value += source[index];
        index++;
      }
      tokens.push({ type: 'string', value, position });
      continue;
    }
    NUMBER.lastIndex = index;
    const number = /[-\d]/.test(char) ? NUMBER.exec(source) : null;
    if (number) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw filterError(parameter, position, `the number ${number[0]} is out of range`);
      tokens.push({ type: 'number', value, text: number[0], position });
      index += number[0].length;
      continue;
    }
    WORD.lastIndex = index;
    const word = WORD.exec(source);
    if (word) {
      tokens.push({ type: 'word', text: word[0], position });
      index += word[0].length;
      continue;
    }
    const symbol = SYMBOLS.find((candidate) => source.startsWith(candidate, index));
    if (!symbol) throw filterError(parameter, position, `unexpected character ${JSON.stringify(char)}`);
    tokens.push({ type: 'symbol', text: symbol, position });
    index += symbol.length;
  }
  tokens.push({ type: 'end', position: source.length + 1 });
  return tokens;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'between', 'in', 'startsWith', 'true', 'false']);

class Parser {
  private index = 0;
  private conditions = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly parameter: string,
  ) {}

  parse(): FilterNode {
    const node = this.or(1);
    const next = this.peek();
    if (next.type !== 'end') throw this.error(next, `expected "and", "or" or the end, found ${describe(next)}`);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private take(): Token {
    return this.tokens[this.index++]!;
  }

  private isWord(text: string): boolean {
    const token = this.peek();
    return token.type === 'word' && token.text === text;
  }

  private isSymbol(text: string): boolean {
    const token = this.peek();
    return token.type === 'symbol' && token.text === text;
  }

  private error(token: Token, message: string): ValidationError {
    return filterError(this.parameter, token.position, message);
  }

  private or(depth: number): FilterNode {
    const items = [this.and(depth)];
    while (this.isWord('or')) {
      this.take();
      items.push(this.and(depth));
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(depth: number): FilterNode {
    const items = [this.unary(depth)];
    while (this.isWord('and')) {
      this.take();
      items.push(this.unary(depth));
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private unary(depth: number): FilterNode {
    const token = this.peek();
    if (depth > MAX_FILTER_DEPTH) throw this.error(token, `nested more than ${MAX_FILTER_DEPTH} levels deep`);
    if (this.isWord('not')) {
      this.take();
      return { kind: 'not', item: this.unary(depth + 1) };
    }
    if (this.isSymbol('(')) {
      this.take();
      const inner = this.or(depth + 1);
      const close = this.take();
      if (close.type !== 'symbol' || close.text !== ')') throw this.error(close, `expected ")", found ${describe(close)}`);
      return inner;
    }
    return this.condition();
  }

  private condition(): ConditionNode {
    const token = this.take();
    if (token.type !== 'word' || KEYWORDS.has(token.text)) throw this.error(token, `expected a field name, found ${describe(token)}`);
    if (++this.conditions > MAX_FILTER_CONDITIONS) throw this.error(token, `more than ${MAX_FILTER_CONDITIONS} conditions`);
    const field = token.text;
    const position = token.position;
    const next = this.take();
    if (next.type === 'symbol' && ['=', '!=', '<', '<=', '>', '>='].includes(next.text)) {
      return { kind: 'compare', field, operator: next.text as ComparisonOperator, value: this.value(), position };
    }
    if (next.type === 'word' && next.text === 'between') {
      const low = this.value();
      const and = this.take();
      if (and.type !== 'word' || and.text !== 'and') throw this.error(and, `expected "and" of "between", found ${describe(and)}`);
      return { kind: 'between', field, low, high: this.value(), position };
    }
    if (next.type === 'word' && next.text === 'in') {
      const open = this.take();
      if (open.type !== 'symbol' || open.text !== '(') throw this.error(open, `expected "(", found ${describe(open)}`);
      const values = [this.value()];
      while (this.isSymbol(',')) {
        this.take();
        if (values.length >= MAX_IN_VALUES) throw this.error(this.peek(), `more than ${MAX_IN_VALUES} values in "in"`);
        values.push(this.value());
      }
      const close = this.take();
      if (close.type !== 'symbol' || close.text !== ')') throw this.error(close, `expected "," or ")", found ${describe(close)}`);
      return { kind: 'in', field, values, position };
    }
    if (next.type === 'word' && next.text === 'startsWith') {
      const prefix = this.take();
      if (prefix.type !== 'string') throw this.error(prefix, `expected a string after "startsWith", found ${describe(prefix)}`);
      return { kind: 'startsWith', field, prefix: prefix.value, position };
    }
    throw this.error(next, `expected an operator (= != < <= > >= between in startsWith) after "${field}", found ${describe(next)}`);
  }

  private value(): Literal {
    const token = this.take();
    if (token.type === 'string' || token.type === 'number') return token.value;
    if (token.type === 'word' && (token.text === 'true' || token.text === 'false')) return token.text === 'true';
    throw this.error(token, `expected a value ('text', a number, true or false), found ${describe(token)}`);
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case 'end':
      return 'the end';
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${token.text}`;
    default:
      return `"${token.text}"`;
  }
}

/** Parses a filter; ValidationError (400) naming `parameter` and the position of the first problem. */
export function parseFilter(source: string, parameter = 'filter'): FilterNode {
  if (source.length > MAX_FILTER_LENGTH) throw filterError(parameter, MAX_FILTER_LENGTH + 1, `longer than ${MAX_FILTER_LENGTH} characters`);
  return new Parser(tokenize(source, parameter), parameter).parse();
}

/** Every condition of the tree, in order. */
export function conditionsOf(node: FilterNode): ConditionNode[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.flatMap(conditionsOf);
    case 'not':
      return conditionsOf(node.item);
    default:
      return [node];
  }
}
