/**
 * GFM tables for turndown. turndown-plugin-gfm 1.0.2 keeps any table without a `<th>`
 * heading row as raw HTML and breaks a row on a multi-line cell; pages are full of such
 * tables, so these rules are our own:
 *
 * - every data table becomes a pipe table; when it has no heading row its first row is the
 *   heading (a model or a reader still gets rows and columns);
 * - a cell's content is flattened to one line, `|` escaped; `colspan` repeats empty cells
 *   so columns stay aligned;
 * - a layout table (every row a single cell) is not a table: its cells are written as blocks;
 * - a table in a data table's cell is not a table either: its cells are words of that cell;
 * - a `<caption>` becomes a paragraph before the table.
 */
import type TurndownService from 'turndown';
import type { DomNode } from './dom-node.js';

const CELL = new Set(['TH', 'TD']);
const SECTION = new Set(['THEAD', 'TBODY', 'TFOOT']);

function tableOf(node: DomNode): DomNode | null {
  for (let n: DomNode | null = node.parentNode; n; n = n.parentNode) if (n.nodeName === 'TABLE') return n;
  return null;
}

/** The rows of a table, not those of nested tables. */
function rowsOf(table: DomNode): DomNode[] {
  const rows: DomNode[] = [];
  for (const child of Array.from(table.childNodes)) {
    if (child.nodeName === 'TR') rows.push(child);
    else if (SECTION.has(child.nodeName)) for (const r of Array.from(child.childNodes)) if (r.nodeName === 'TR') rows.push(r);
  }
  return rows;
}

const cellsOf = (row: DomNode): DomNode[] => Array.from(row.childNodes).filter((c) => CELL.has(c.nodeName));

const span = (cell: DomNode): number => Math.min(Math.max(Number.parseInt(cell.getAttribute('colspan') ?? '1', 10) || 1, 1), 50);

/** Memo: is this table a layout table (no row with two or more cells)? */
const layoutMemo = new WeakMap<DomNode, boolean>();
function isLayout(table: DomNode): boolean {
  let layout = layoutMemo.get(table);
  if (layout === undefined) {
    layout = rowsOf(table).every((row) => cellsOf(row).length <= 1);
    layoutMemo.set(table, layout);
  }
  return layout;
}

/**
 * Memo: does this table sit in a cell of a data table? A pipe table cannot hold another: a
 * nested table's cells are written as words in the outer cell. (Written as pipe tables, each
 * level's pipes were escaped again by the level around it: 300 nested tables, 13 KB of HTML,
 * made 276 KB of markdown in 1.1 s.)
 */
const nestedMemo = new WeakMap<DomNode, boolean>();
function isNested(table: DomNode): boolean {
  let nested = nestedMemo.get(table);
  if (nested === undefined) {
    const outer = tableOf(table);
    nested = outer !== null && (isNested(outer) || !isLayout(outer));
    nestedMemo.set(table, nested);
  }
  return nested;
}

/** A table written as a pipe table: a data table, not inside another's cell. */
const isPiped = (table: DomNode): boolean => !isLayout(table) && !isNested(table);

function headingRow(table: DomNode): DomNode | undefined {
  return rowsOf(table).find((row) => cellsOf(row).length > 0);
}

/** A cell's content on one line; its pipes escaped, unless it is a nested table's (the pipe table's own cell escapes them once). */
const flatten = (content: string, escapePipes = true): string => {
  const line = content.replace(/\n+/g, ' ');
  return (escapePipes ? line.replace(/\|/g, '\\|') : line).replace(/\s+/g, ' ').trim();
};

export function tableRules(service: TurndownService): void {
  service.addRule('tableCell', {
    filter: (node) => CELL.has((node as unknown as DomNode).nodeName),
    replacement: (content, node) => {
      const cell = node as unknown as DomNode;
      const table = tableOf(cell);
      if (!table || isLayout(table)) return `\n\n${content}\n\n`;
      if (isNested(table)) return `${flatten(content, false)} `;
      const text = flatten(content);
      const extra = ' |'.repeat(span(cell) - 1);
      return `${text} |${extra} `;
    },
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = node as unknown as DomNode;
      const table = tableOf(row);
      if (!table || isLayout(table)) return content;
      if (isNested(table)) return ` ${content} `;
      const cells = cellsOf(row);
      if (!cells.length) return '';
      let line = `\n| ${content.trimEnd()}`;
      if (headingRow(table) === row) {
        const width = cells.reduce((n, c) => n + span(c), 0);
        line += `\n|${' --- |'.repeat(width)}`;
      }
      return line;
    },
  });
  service.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });
  service.addRule('tableCaption', {
    filter: 'caption',
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
  service.addRule('table', {
    filter: 'table',
    replacement: (content, node) => {
      const table = node as unknown as DomNode;
      if (!isPiped(table)) return `\n\n${content}\n\n`;
      // Caption paragraphs come first; the table rows are the lines starting with `|`.
      const lines = content.split('\n');
      const rows = lines.filter((l) => l.startsWith('|'));
      const other = lines.filter((l) => !l.startsWith('|') && l.trim()).join('\n');
      return `\n\n${other ? `${other}\n\n` : ''}${rows.join('\n')}\n\n`;
    },
  });
}
