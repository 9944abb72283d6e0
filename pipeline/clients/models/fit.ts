/**
 * Page text cut to fit a model: past MODEL_MAX_INPUT_CHARS the text is cut at the last paragraph
 * break in the final fifth of the allowance, else the last sentence end there, else the last
 * whitespace in the final tenth, else at the limit itself (never inside a surrogate pair), and
 * the answer carries the warning "the page was cut to N characters to fit the model". Plain
 * string searches: no regular expression runs on page text here.
 */

export interface FittedInput {
  readonly text: string;
  readonly truncated: boolean;
  readonly warning: string | null;
}

const SENTENCE_ENDS = ['. ', '.\n', '! ', '!\n', '? ', '?\n', '。', '！', '？'];
const SPACES = [' ', '\n', '\t'];

export function fitInput(text: string, maxChars: number): FittedInput {
  if (text.length <= maxChars) return { text, truncated: false, warning: null };
  const cut = cutPoint(text, maxChars);
  const kept = text.slice(0, cut).trimEnd();
  return { text: kept, truncated: true, warning: `the page was cut to ${kept.length} characters to fit the model` };
}

function cutPoint(text: string, maxChars: number): number {
  const window = text.slice(0, maxChars);
  const paragraph = window.lastIndexOf('\n\n');
  if (paragraph >= maxChars * 0.8) return paragraph;
  const sentence = lastEnd(window, SENTENCE_ENDS);
  if (sentence >= maxChars * 0.8) return sentence;
  const space = lastEnd(window, SPACES);
  if (space >= maxChars * 0.9) return space;
  const code = text.charCodeAt(maxChars - 1);
  return code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars;
}

/** The index just past the last occurrence of any of `marks` (its first character kept for sentence ends), or -1. */
function lastEnd(window: string, marks: readonly string[]): number {
  let best = -1;
  for (const mark of marks) {
    const at = window.lastIndexOf(mark);
    if (at >= 0) best = Math.max(best, at + (mark.length > 1 || mark.trim() !== '' ? 1 : 0));
  }
  return best;
}
