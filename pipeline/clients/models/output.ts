/**
 * Reading JSON out of a model's text: the whole text when it parses; else the inside of a
 * markdown code fence (```json … ``` — what JSON-mode servers and tool-less models often write);
 * else the span from the first `{` to the last `}`. String searches only (indexOf), no regular
 * expression on model output.
 */

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

export function parseModelJson(text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, problem: 'the answer was empty' };
  for (const candidate of [trimmed, fenced(trimmed), braced(trimmed)]) {
    if (candidate === null) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) as unknown };
    } catch {
      // the next reading
    }
  }
  return { ok: false, problem: 'the answer was not JSON' };
}

/** The body of the first ``` fence (its info string such as `json` skipped), or null. */
function fenced(text: string): string | null {
  const open = text.indexOf('```');
  if (open < 0) return null;
  const lineEnd = text.indexOf('\n', open + 3);
  if (lineEnd < 0) return null;
  const close = text.indexOf('```', lineEnd + 1);
  return text.slice(lineEnd + 1, close < 0 ? text.length : close).trim();
}

function braced(text: string): string | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : null;
}
