/**
 * The part of the DOM node interface our turndown rules read. turndown parses with domino
 * and hands rules DOM nodes; the project compiles without the DOM lib, so rules cast to
 * this instead of `HTMLElement`.
 */
export interface DomNode {
  readonly nodeName: string;
  readonly nodeType: number;
  readonly parentNode: DomNode | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly firstChild: DomNode | null;
  readonly textContent: string | null;
  readonly className?: string;
  getAttribute(name: string): string | null;
}
