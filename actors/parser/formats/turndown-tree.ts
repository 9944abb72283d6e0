/**
 * A light DOM over a domhandler subtree, built for one turndown call.
 *
 * turndown given an HTML string parses it with its own DOM (domino), and recomputes each
 * element's `textContent` and `getElementsByTagName` by walking its subtree, node by node.
 * The parser already holds the tree (cheerio), so markdown.ts hands turndown this copy
 * instead: no serializing, no second parse, `textContent` and descendant names computed
 * once per element.
 *
 * The copy is the tree domino would build from the serialized subtree (wrapped in
 * `<x-turndown>`, as turndown does), so the markdown is the same:
 * - a `<body>` root contributes its children, any other root itself;
 * - adjacent text nodes are one text node; empty ones are dropped; CR and CRLF are LF;
 * - `<pre>`, `<listing>` and `<textarea>` lose one leading line feed (the parser drops it
 *   again, and the serializer does not double it);
 * - HTML elements are named in upper case, foreign ones (SVG, MathML) as written; a foreign
 *   element's namespaced attributes keep their prefix (`xlink:href`).
 * Where reparsing would change the tree — table parts outside their table, text or other
 * elements inside table structure, nested links, forms or buttons, a nested `<body>`,
 * `<template>`, `<noscript>`, `<plaintext>`, a foreign root — `turndownTree` returns null
 * and the caller converts the serialized HTML as before.
 *
 * Only what turndown and our rules read is implemented: node type and name, parent,
 * children and siblings, `data`/`nodeValue`, `textContent`, `getAttribute`,
 * `getElementsByTagName(NAME).length` (upper-case names, as turndown asks), `removeChild`
 * and `cloneNode` (which returns the tree itself: it is built for one conversion).
 */
import type { AnyNode, Element } from 'domhandler';

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** The parser's input preprocessing: CR and CRLF become LF (a `&#13;` in the page is a raw CR once serialized). */
const newlines = (text: string): string => text.replace(/\r\n?/g, '\n');

abstract class TreeNode {
  abstract readonly nodeType: number;
  abstract readonly nodeName: string;
  abstract readonly textContent: string;
  parentNode: TreeElement | null = null;
  previousSibling: TreeNode | null = null;
  nextSibling: TreeNode | null = null;
}

class TreeText extends TreeNode {
  readonly nodeType = 3;
  readonly nodeName = '#text';
  private value: string;

  constructor(value: string) {
    super();
    this.value = value;
  }

  get data(): string {
    return this.value;
  }

  set data(value: string) {
    this.value = value;
    this.parentNode?.changed();
  }

  get nodeValue(): string {
    return this.value;
  }

  get textContent(): string {
    return this.value;
  }
}

class TreeComment extends TreeNode {
  readonly nodeType = 8;
  readonly nodeName = '#comment';
  readonly textContent = '';
}

const NO_MATCH = Object.freeze({ length: 0 });
const ONE_MATCH = Object.freeze({ length: 1 });

class TreeElement extends TreeNode {
  readonly nodeType = 1;
  readonly nodeName: string;
  /** In the HTML namespace (domino matches `getElementsByTagName` names only there). */
  readonly html: boolean;
  firstChild: TreeNode | null = null;
  lastChild: TreeNode | null = null;
  private readonly attributes: Readonly<Record<string, string>>;
  private list: TreeNode[] | null = null;
  private text: string | null = null;
  private names: Set<string> | null = null;

  constructor(nodeName: string, html: boolean, attributes: Readonly<Record<string, string>>) {
    super();
    this.nodeName = nodeName;
    this.html = html;
    this.attributes = attributes;
  }

  getAttribute(name: string): string | null {
    const value = this.attributes[name.toLowerCase()];
    if (value === undefined) return null;
    return value.includes('\r') ? newlines(value) : value;
  }

  get childNodes(): TreeNode[] {
    if (!this.list) {
      const list: TreeNode[] = [];
      for (let c = this.firstChild; c; c = c.nextSibling) list.push(c);
      this.list = list;
    }
    return this.list;
  }

  get children(): TreeElement[] {
    return this.childNodes.filter((c): c is TreeElement => c instanceof TreeElement);
  }

  get lastElementChild(): TreeElement | null {
    for (let c = this.lastChild; c; c = c.previousSibling) if (c instanceof TreeElement) return c;
    return null;
  }

  get textContent(): string {
    if (this.text === null) {
      let text = '';
      for (let c = this.firstChild; c; c = c.nextSibling) text += c.textContent;
      this.text = text;
    }
    return this.text;
  }

  /** `{length}` of the descendants named `name` (an upper-case HTML name). */
  getElementsByTagName(name: string): { readonly length: number } {
    if (!this.html) return NO_MATCH;
    if (!this.names) {
      const names = new Set<string>();
      collectNames(this, names);
      this.names = names;
    }
    return this.names.has(name) ? ONE_MATCH : NO_MATCH;
  }

  append(child: TreeNode): void {
    child.parentNode = this;
    child.previousSibling = this.lastChild;
    if (this.lastChild) this.lastChild.nextSibling = child;
    else this.firstChild = child;
    this.lastChild = child;
  }

  removeChild(child: TreeNode): TreeNode {
    if (child.parentNode !== this) throw new Error('removeChild: not a child of this element');
    if (child.previousSibling) child.previousSibling.nextSibling = child.nextSibling;
    else this.firstChild = child.nextSibling;
    if (child.nextSibling) child.nextSibling.previousSibling = child.previousSibling;
    else this.lastChild = child.previousSibling;
    child.parentNode = null;
    child.previousSibling = null;
    child.nextSibling = null;
    this.changed();
    return child;
  }

  cloneNode(): this {
    return this;
  }

  /** Drops what was computed from the subtree, here and above (cached ancestors only). */
  changed(): void {
    this.list = null;
    for (let el: TreeElement | null = this; el && (el.text !== null || el.names !== null); el = el.parentNode) {
      el.text = null;
      el.names = null;
    }
  }
}

/** The HTML element names under `el`, into `names`. */
function collectNames(el: TreeElement, names: Set<string>): void {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (!(c instanceof TreeElement)) continue;
    if (c.html) names.add(c.nodeName);
    collectNames(c, names);
  }
}

export type TurndownTree = TreeElement;

/** Start tags the HTML parser ignores inside `<body>`, or that would change what follows. */
const NOT_IN_BODY = new Set(['HTML', 'HEAD', 'BODY', 'FRAMESET', 'FRAME', 'TEMPLATE', 'NOSCRIPT', 'PLAINTEXT']);
/** Elements the parser closes when the same one opens inside (or, for FORM, ignores). */
const NO_NESTING = ['A', 'FORM', 'BUTTON', 'NOBR'] as const;
/** Table parts and the only parents the parser gives them. */
const TABLE_PART_PARENTS: Readonly<Record<string, ReadonlySet<string>>> = {
  CAPTION: new Set(['TABLE']),
  COLGROUP: new Set(['TABLE']),
  TBODY: new Set(['TABLE']),
  THEAD: new Set(['TABLE']),
  TFOOT: new Set(['TABLE']),
  TR: new Set(['TBODY', 'THEAD', 'TFOOT']),
  TD: new Set(['TR']),
  TH: new Set(['TR']),
  COL: new Set(['COLGROUP']),
};
/** Table structure elements: their element children are table parts or these, text is whitespace. */
const TABLE_STRUCTURE = new Set(['TABLE', 'TBODY', 'THEAD', 'TFOOT', 'TR', 'COLGROUP']);
const IN_TABLE_ALSO = new Set(['SCRIPT', 'STYLE']);
const FIRST_NEWLINE_DROPPED = new Set(['PRE', 'LISTING', 'TEXTAREA']);
const ASCII_WHITESPACE = /^[ \t\n\f\r]*$/;

class Unsafe extends Error {}

function isHtml(el: Element): boolean {
  const ns = (el as Element & { namespace?: string }).namespace;
  return !ns || ns === HTML_NS;
}

function attributesOf(el: Element, html: boolean): Readonly<Record<string, string>> {
  if (html) return el.attribs;
  const prefixes = (el as Element & { 'x-attribsPrefix'?: Record<string, string | undefined> })['x-attribsPrefix'];
  if (!prefixes) return el.attribs;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(el.attribs)) {
    const prefix = prefixes[name];
    out[prefix ? `${prefix}:${name}` : name] = value;
  }
  return out;
}

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style';

/** Appends pending text to `into` (none inside table structure but white space). */
function flushText(into: TreeElement, text: string, structure: boolean): void {
  if (!text) return;
  if (structure && !ASCII_WHITESPACE.test(text)) throw new Unsafe('text inside table structure');
  into.append(new TreeText(text.includes('\r') ? newlines(text) : text));
}

/** Copies `from`'s children into `into`; `open` counts the NO_NESTING elements around. */
function copyChildren(from: Element, into: TreeElement, open: Record<string, number>): void {
  const structure = into.html && TABLE_STRUCTURE.has(into.nodeName);
  let text = '';
  for (const child of from.children) {
    if (child.type === 'text') {
      text += child.data;
    } else if (child.type === 'comment') {
      flushText(into, text, structure);
      text = '';
      into.append(new TreeComment());
    } else if (isElement(child)) {
      flushText(into, text, structure);
      text = '';
      into.append(copyElement(child, into, open));
    } else {
      throw new Unsafe(`a ${child.type} node`);
    }
  }
  flushText(into, text, structure);
  const first = into.firstChild;
  if (into.html && FIRST_NEWLINE_DROPPED.has(into.nodeName) && first instanceof TreeText && first.data.startsWith('\n')) {
    if (first.data.length === 1) into.removeChild(first);
    else first.data = first.data.slice(1);
  }
}

function copyElement(el: Element, parent: TreeElement, open: Record<string, number>): TreeElement {
  const html = isHtml(el);
  const name = html ? el.name.toUpperCase() : el.name;
  const parents = html ? TABLE_PART_PARENTS[name] : undefined;
  if (html && NOT_IN_BODY.has(name)) throw new Unsafe(`<${el.name}> inside the content`);
  if (parents && !(parent.html && parents.has(parent.nodeName))) throw new Unsafe(`<${el.name}> outside its table`);
  if (parent.html && TABLE_STRUCTURE.has(parent.nodeName)) {
    const allowed = parent.nodeName === 'COLGROUP' ? name === 'COL' : !!parents || (html && IN_TABLE_ALSO.has(name));
    if (!allowed) throw new Unsafe(`<${el.name}> inside <${parent.nodeName.toLowerCase()}>`);
  }
  const copy = new TreeElement(name, html, attributesOf(el, html));
  const nests = html && (NO_NESTING as readonly string[]).includes(name);
  if (nests) {
    if (open[name]) throw new Unsafe(`nested <${el.name}>`);
    open[name] = 1;
  }
  copyChildren(el, copy, open);
  if (nests) open[name] = 0;
  return copy;
}

/**
 * The tree turndown would parse from the serialized `root`, or null where reparsing would
 * not give back the same tree (see the file comment).
 */
export function turndownTree(root: Element): TurndownTree | null {
  if (!isElement(root) || !isHtml(root)) return null;
  const top = new TreeElement('X-TURNDOWN', true, { id: 'turndown-root' });
  const body = new TreeElement('BODY', true, {});
  body.append(top);
  try {
    if (root.name === 'body') copyChildren(root, top, {});
    else top.append(copyElement(root, top, {}));
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
  return top;
}
