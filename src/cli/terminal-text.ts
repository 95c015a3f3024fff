/**
 * @module Text for the operator's terminal: data, never control codes. Everything the CLI prints comes
 * from somewhere it does not control (a server's answers, a definition file, the command line), and a
 * terminal obeys control characters: ESC and C1 sequences can write the clipboard (OSC 52), set the window
 * title, plant hyperlinks (OSC 8), clear the screen or move the cursor over earlier lines. So every print
 * path (Output) passes its text through here:
 * - human output shows each control character as a visible `\uXXXX` escape (the same spelling as JSON);
 * - `--json` output keeps the data exact but escapes, beyond what JSON.stringify escapes (C0), DEL, the
 *   C1 controls (U+0080-U+009F, U+009B is a one-character CSI on many terminals), the line and paragraph
 *   separators and the bidirectional formatting characters, as `\uXXXX`.
 */

/**
 * C0 (U+0000-U+001F), DEL, C1 (U+0080-U+009F), the Unicode line and paragraph separators, and the
 * bidirectional marks, embeddings, overrides and isolates (which reorder what is shown: "Trojan source").
 */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Those a JSON string may hold raw (JSON.stringify escapes C0 itself). */
const CONTROL_CHARACTERS_JSON_KEEPS = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The text with every control character (line feed and tab included) shown as `\uXXXX`. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, unicodeEscape);
}

/**
 * Text the CLI wrote itself, over several lines (commander's help and usage errors, a Mermaid document):
 * line feeds and tabs are its layout and stay; every other control character is escaped.
 */
export function escapeControlCharactersKeepingLayout(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (character) => (character === '\n' || character === '\t' ? character : unicodeEscape(character)));
}

/** JSON.stringify, indented, with no raw control character left: the same data, safe to print. */
export function jsonForTerminal(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(CONTROL_CHARACTERS_JSON_KEEPS, unicodeEscape);
}
