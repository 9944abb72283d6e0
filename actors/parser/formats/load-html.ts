/**
 * Loading a page for the parser: htmlparser2 builds the tree (about three times faster than
 * parse5 on real pages, and far less garbage), then the page is given the document shape an
 * HTML5 parser gives it, which the rest of the parser relies on:
 *
 * - one `<html>` child of the root holding one `<head>` and one `<body>` (created when the
 *   markup has none);
 * - head material (`<meta>`, `<link>`, `<title>`, `<script>`, …) met before the body in the
 *   head; the first other element or text in (or after) the head starts the body, with
 *   everything after it (an unclosed `<head>` does not swallow the page);
 * - whatever follows `</body>` or `</html>` appended to the body;
 * - table parts where the HTML parser puts them: rows written directly in a table get a
 *   `<tbody>`, cells outside a row a `<tr>`, cols a `<colgroup>`; a row, cell, section or
 *   caption outside any table is an ignored tag (its content stays in place);
 * - an `<a>` opening inside an unclosed `<a>` closes it there (the elements between are
 *   split, as the adoption agency does);
 * - a nested `<html>`, `<head>` or `<body>` tag dropped (its children stay in place), and
 *   `<?…>`/`<!…>` inside the page dropped (bogus comments to an HTML parser);
 * - `<![CDATA[` outside `<svg>` and `<math>` a bogus comment that ends at the first `>`, as
 *   an HTML parser reads it (htmlparser2 reads on to `]]>`: a page that writes `<![CDATA[`
 *   in its body with no `]]>` after it lost everything that followed).
 * The repairs are found while parsing (an element callback), not by walking the tree.
 *
 * What is not attempted — foster-parenting of stray content out of tables, the rest of the
 * adoption agency (a formatting end tag closing the blocks opened inside it) — is left as
 * written; markdown conversion (turndown-tree.ts) notices the few such trees it cannot copy
 * (6 of the 990 trafilatura-eval pages) and converts their HTML instead.
 *
 * Serializing (`$.html()`) goes through dom-serializer in HTML mode: void elements without
 * end tags, only `&`, `<`, `>`, NBSP (and `"` in attributes) escaped, empty attributes as
 * `name=""` — the same as parse5's serializer.
 */
import { load, type CheerioAPI } from 'cheerio';
import { type AnyNode, type ChildNode, DomHandler, Element, type ParentNode, type Text } from 'domhandler';
import { Parser, Tokenizer } from 'htmlparser2';
import { AppError } from '../../../pipeline/runtime/errors.js';

/** Elements an HTML parser keeps in the `<head>` (before any body content). */
const HEAD_TAGS = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'noscript', 'script', 'style', 'template', 'title']);

const CHEERIO_OPTIONS = { xml: { xmlMode: false, decodeEntities: true, encodeEntities: 'utf8', emptyAttrs: true } } as const;
const PARSER_OPTIONS = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false } as const;

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style';
const isBlank = (node: AnyNode): boolean => node.type === 'comment' || (node.type === 'text' && !/\S/.test((node as Text).data));

/** Makes `nodes` the children of `parent`, in order, with their links. */
function setChildren(parent: ParentNode, nodes: ChildNode[]): void {
  parent.children = nodes;
  for (let i = 0; i < nodes.length; i += 1) {
    const node = nodes[i] as ChildNode;
    node.parent = parent;
    node.prev = nodes[i - 1] ?? null;
    node.next = nodes[i + 1] ?? null;
  }
}

/** Replaces `el` by its children (a tag the HTML parser would have ignored). */
function unwrap(el: Element): void {
  const parent = el.parent;
  if (!parent) return;
  const i = parent.children.indexOf(el);
  if (i < 0) return;
  setChildren(parent, [...parent.children.slice(0, i), ...el.children, ...parent.children.slice(i + 1)]);
  el.children = [];
}

/** Wraps each run of `el`'s children named in `names` (blank text between them included) in a new `wrapper` element. */
function wrapRuns(el: Element, names: ReadonlySet<string>, wrapper: string): void {
  const out: ChildNode[] = [];
  let run: Element | null = null;
  for (const child of el.children) {
    if (isElement(child) && names.has(child.name)) {
      if (!run) {
        run = new Element(wrapper, {});
        out.push(run);
      }
      run.children.push(child);
    } else if (run && child.type === 'text' && isBlank(child)) {
      run.children.push(child);
    } else {
      run = null;
      out.push(child);
    }
  }
  for (const node of out) if (isElement(node) && node.name === wrapper && !node.parent) setChildren(node, node.children);
  setChildren(el, out);
}

/**
 * Moves `node` and what follows it inside `ancestor` out, to just after `ancestor`: each
 * element on the way is split, its second half a shallow copy (an unclosed `<a>` is closed
 * where the next `<a>` opens, as the HTML parser's adoption agency does).
 */
function splitBefore(node: ChildNode, ancestor: Element): void {
  let moving: ChildNode = node;
  for (let parent = node.parent as Element; ; ) {
    const i = parent.children.indexOf(moving);
    const tail = parent.children.slice(i);
    setChildren(parent, parent.children.slice(0, i));
    const grand = parent.parent;
    if (!grand) return;
    const at = grand.children.indexOf(parent as ChildNode) + 1;
    let inserted: ChildNode[];
    if (parent === ancestor) inserted = tail;
    else {
      const copy = new Element(parent.name, { ...parent.attribs }, [], parent.type as never);
      setChildren(copy, tail);
      inserted = [copy];
    }
    setChildren(grand, [...grand.children.slice(0, at), ...inserted, ...grand.children.slice(at)]);
    if (parent === ancestor) return;
    moving = inserted[0] as ChildNode;
    parent = grand as Element;
  }
}

function nearestAncestor(el: Element, name: string): Element | null {
  for (let p = el.parent; p && p.type !== 'root'; p = p.parent) if ((p as Element).name === name) return p as Element;
  return null;
}

const SECTIONS = new Set(['tbody', 'thead', 'tfoot']);
const CELLS = new Set(['td', 'th']);
const ROWS = new Set(['tr']);
const COLS = new Set(['col']);
/** Table parts → the parents the HTML parser gives them. */
const TABLE_PART_PARENTS: Readonly<Record<string, ReadonlySet<string>>> = {
  caption: new Set(['table']),
  colgroup: new Set(['table']),
  tbody: new Set(['table']),
  thead: new Set(['table']),
  tfoot: new Set(['table']),
  tr: new Set(['table', 'tbody', 'thead', 'tfoot']),
  td: new Set(['tr', 'table', 'tbody', 'thead', 'tfoot']),
  th: new Set(['tr', 'table', 'tbody', 'thead', 'tfoot']),
  col: new Set(['colgroup', 'table']),
};
/** Where the HTML parser puts each table part; a part elsewhere is repaired (see `repairTables`). */
const CANONICAL_PARENT: Readonly<Record<string, string>> = {
  caption: 'table', colgroup: 'table', tbody: 'table', thead: 'table', tfoot: 'table', tr: 'tbody', td: 'tr', th: 'tr', col: 'colgroup',
};
const parentName = (el: Element): string => (el.parent && isElement(el.parent) ? el.parent.name : '');

/** Table structure as the HTML parser builds it: rows in sections, cells in rows, table parts only in tables. */
function repairTables(parts: readonly Element[]): void {
  // Parts outside a table (or in a table's wrong part) are tags the parser ignores.
  for (const el of parts) if (!TABLE_PART_PARENTS[el.name]?.has(parentName(el))) unwrap(el);
  // Cells directly in a table or section get a row; rows directly in a table a <tbody>; cols a <colgroup>.
  const sections = new Set<Element>();
  const all = new Set<Element>();
  for (const el of parts) {
    const parent = el.parent;
    if (!parent || !isElement(parent)) continue;
    if (parent.name === 'table') all.add(parent);
    if (CELLS.has(el.name) && parent.name !== 'tr') sections.add(parent);
  }
  for (const section of sections) wrapRuns(section, CELLS, 'tr');
  for (const table of all) {
    wrapRuns(table, ROWS, 'tbody');
    wrapRuns(table, COLS, 'colgroup');
  }
}

const HEAD_OR_BODY = new Set(['head', 'body']);

/** The document shape an HTML5 parser gives (see the file comment). */
function shape(root: ParentNode): void {
  const top: ChildNode[] = [];
  const directives: ChildNode[] = [];
  let html: Element | null = null;
  for (const node of root.children) {
    if (node.type === 'directive') directives.push(node);
    else if (!html && node.type === 'tag' && node.name === 'html') {
      html = node;
      top.push(...node.children);
    } else top.push(node);
  }
  html ??= new Element('html', {});
  let head: Element | null = null;
  let body: Element | null = null;
  for (const node of top) {
    if (!head && node.type === 'tag' && node.name === 'head') head = node;
    else if (!body && node.type === 'tag' && node.name === 'body') body = node;
  }
  head ??= new Element('head', {});
  body ??= new Element('body', {});

  const headNodes: ChildNode[] = [];
  const before: ChildNode[] = [];
  const after: ChildNode[] = [];
  let started = false;
  const take = (node: ChildNode) => {
    if (!started && ((isElement(node) && HEAD_TAGS.has(node.name)) || isBlank(node))) headNodes.push(node);
    else {
      started = true;
      before.push(node);
    }
  };
  let seenBody = false;
  const place = (node: ChildNode): void => {
    if (node === body) seenBody = true;
    else if (node === head) for (const c of head.children) take(c);
    else if (node.type === 'tag' && (node.name === 'html' || HEAD_OR_BODY.has(node.name))) for (const c of node.children) place(c);
    else if (seenBody) after.push(node);
    else take(node);
  };
  for (const node of top) place(node);
  setChildren(head, headNodes);
  setChildren(body, [...before, ...body.children, ...after]);
  setChildren(html, [head, body]);
  setChildren(root, [...directives, html]);
}

/** An `<html>` below the root, a `<head>` or `<body>` below anything but the root or a top `<html>`. */
function misplaced(el: Element): boolean {
  const parent = el.parent;
  if (!parent || parent.type === 'root') return false;
  return el.name === 'html' || !(parent.type === 'tag' && parent.name === 'html' && parent.parent?.type === 'root');
}

/**
 * The deepest element nesting a page may have. The 1,292 pages of the shared corpus nest 86
 * deep at most (Blink's tree builder stops nesting at 512); past about 2,000 levels the walks
 * of the tree afterwards (text, serialising, markdown, main content), which recurse once a
 * level, overflow the stack. htmlparser2 alone does not keep a page shallow where a browser's
 * tree builder would (`<li><p>item` repeated, unclosed: each item one level deeper), so the
 * limit leaves such pages room. The parse stops with `page_too_complex` at the first element
 * deeper: htmlparser2 keeps its open elements in an array it shifts and unshifts (its time
 * grows with the square of the depth: a page 50,000 `<div>`s deep takes it minutes). Checked
 * as elements open: a page costs one comparison an element, a deep one at most MAX_PAGE_DEPTH
 * levels of that array.
 */
export const MAX_PAGE_DEPTH = 1024;

/** A parse that notes the elements needing repair as they close, so no walk of the tree is needed. */
class Handler extends DomHandler {
  /** `<html>`, `<head>` and `<body>` elements (those below the top are unwrapped). */
  readonly nested: Element[] = [];
  /** `<a>` elements inside another `<a>`. */
  readonly links: Element[] = [];
  /** Table parts (rows, cells, sections, captions, cols) not under the parent the HTML parser gives them. */
  readonly parts: Element[] = [];

  constructor() {
    super(undefined, { withStartIndices: false, withEndIndices: false }, (el: Element) => {
      const name = el.name;
      if (name === 'a') {
        if (nearestAncestor(el, 'a')) this.links.push(el);
        return;
      }
      const canonical = CANONICAL_PARENT[name];
      if (canonical) {
        const parent = parentName(el);
        if (parent !== canonical && !(name === 'tr' && SECTIONS.has(parent))) this.parts.push(el);
        return;
      }
      if (name === 'body' || name === 'head' || name === 'html') this.nested.push(el);
    });
  }

  /** An element deeper than MAX_PAGE_DEPTH ends the parse (`tagStack` holds the root and the open elements). */
  override onopentag(name: string, attribs: { [key: string]: string }): void {
    if (this.tagStack.length > MAX_PAGE_DEPTH) throw new AppError('page_too_complex', `the page nests its elements deeper than ${MAX_PAGE_DEPTH} levels; it was not read`);
    super.onopentag(name, attribs);
  }

  /** Whether the innermost open elements include `<svg>` or `<math>` (where `<![CDATA[` is a real section). */
  inForeignContent(): boolean {
    for (let i = this.tagStack.length - 1; i > 0; i -= 1) {
      const name = (this.tagStack[i] as Element).name;
      if (name === 'svg' || name === 'math') return true;
    }
    return false;
  }

  /** `<?…>` and `<!…>` inside the page are bogus comments to an HTML parser (dropped); only the doctype is kept. */
  override onprocessinginstruction(name: string, data: string): void {
    if (this.tagStack.length === 1) super.onprocessinginstruction(name, data);
  }
}

/** The parse under way (parsing is synchronous): what `HtmlTokenizer` asks whether a CDATA section is in foreign content. */
let parsing: Handler | null = null;

/** htmlparser2's tokenizer states (its `State` enum, not exported) that the CDATA repair moves between. */
const IN_DECLARATION = 16;
const IN_COMMENT_LIKE = 21;

interface TokenizerState {
  state: number;
}

/**
 * htmlparser2's tokenizer, but `<![CDATA[` outside foreign content (`<svg>`, `<math>`) is a
 * bogus comment ending at the first `>` (the declaration state, whose callback the Handler
 * drops), as the HTML standard's tokenizer reads it, instead of a section ending at `]]>`.
 */
class HtmlTokenizer extends Tokenizer {}
{
  const proto = Tokenizer.prototype as unknown as { stateCDATASequence(this: TokenizerState, c: number): void };
  const original = proto.stateCDATASequence;
  (HtmlTokenizer.prototype as unknown as typeof proto).stateCDATASequence = function (this: TokenizerState, c: number) {
    original.call(this, c);
    if (this.state === IN_COMMENT_LIKE && !parsing?.inForeignContent()) this.state = IN_DECLARATION;
  };
}

const HTML_PARSER_OPTIONS = { ...PARSER_OPTIONS, Tokenizer: HtmlTokenizer };

/** The page parsed and shaped as a document (see the file comment), loaded in cheerio; `page_too_complex` past MAX_PAGE_DEPTH. */
export function loadHtml(html: string): CheerioAPI {
  const handler = new Handler();
  parsing = handler;
  try {
    new Parser(handler, HTML_PARSER_OPTIONS).end(html);
  } finally {
    parsing = null;
  }
  const root = handler.root;
  for (const el of handler.nested) if (misplaced(el)) unwrap(el);
  for (const a of handler.links) for (let outer = nearestAncestor(a, 'a'); outer; outer = nearestAncestor(a, 'a')) splitBefore(a, outer);
  if (handler.parts.length) repairTables(handler.parts);
  shape(root);
  return load(root, CHEERIO_OPTIONS);
}

/**
 * Lets go of a page loaded by `loadHtml` once nothing more is read from it: its root drops its
 * children. Cheerio's `load` makes a class for every page, whose hidden class V8 keeps in old
 * space, and the scavenger treats old space as alive: through that class's prototype and
 * closures the finished page's whole tree survived the next young-generation collection,
 * which copied and promoted it (6.7-7.6 MB of a 400 KB page, every page), until a
 * mark-compact. The selections and nodes already handed out stay as they are.
 */
export function releaseHtml($: CheerioAPI): void {
  const root = $.root()[0];
  if (root) root.children = [];
}

/** The `<body>` of a loaded document: reached from the root through `<html>`, where both parsers put it. */
export function bodyOf($: CheerioAPI): Element | undefined {
  const root = $.root()[0];
  if (!root) return undefined;
  for (const top of root.children) {
    if (top.type !== 'tag' || top.name !== 'html') continue;
    for (const c of top.children) if (c.type === 'tag' && c.name === 'body') return c;
  }
  return $('body')[0];
}
