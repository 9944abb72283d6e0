/**
 * Walks over a parsed page in document order without the selector engine: for the few
 * whole-page lookups on every page (the `<base>`, never-readable elements), a compiled
 * selector costs more than the walk. Template contents are walked too, as selectors do.
 */
import type { AnyNode, Element } from 'domhandler';

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style';

const childrenOf = (node: AnyNode): readonly AnyNode[] | undefined => (node as { children?: AnyNode[] }).children;

/** Puts `node`'s children on `stack` so that they pop in document order. */
function pushChildren(stack: AnyNode[], node: AnyNode): void {
  const children = childrenOf(node);
  if (children) for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as AnyNode);
}

/** The first element under `root` (not `root` itself) that passes `test`, in document order. */
export function findFirst(root: AnyNode, test: (el: Element) => boolean): Element | undefined {
  const stack: AnyNode[] = [];
  pushChildren(stack, root);
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (isElement(node) && test(node)) return node;
    pushChildren(stack, node);
  }
  return undefined;
}

/**
 * The outermost elements under `root` that pass `test`, in document order: what is inside a
 * match is not looked at (removing the matches removes it too).
 */
export function findOutermost(root: AnyNode, test: (el: Element) => boolean): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [];
  pushChildren(stack, root);
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (isElement(node) && test(node)) out.push(node);
    else pushChildren(stack, node);
  }
  return out;
}
