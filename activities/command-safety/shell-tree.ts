/**
 * tree-sitter's syntax tree copied into plain objects in one pass, for the walk (shell-walk.ts,
 * shell-expand.ts, shell-vars.ts). Every property of a web-tree-sitter node is a call into WASM that
 * marshals the node and allocates a new object each time, and the walk reads the same nodes many
 * times over (variables, then commands, then the substitutions inside each word): on a 2,000-character
 * command line those calls cost more than the parse itself. One cursor pass reads each node once;
 * the WASM tree is freed right after. The copy keeps the names of the web-tree-sitter properties the
 * walk uses, so the walk reads as it would on tree-sitter's own nodes.
 */
import type { Tree, TreeCursor } from 'web-tree-sitter';

export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  private named: SyntaxNode[] | undefined;
  /** The node is, or holds, an ERROR or a MISSING node. */
  hasError = false;

  constructor(
    /** The whole text tree-sitter parsed (a node's text is a slice of it). */
    private readonly source: string,
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** The field of its parent this node fills (`name`, `value`, `body`, …). */
    readonly field: string | null,
  ) {}

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  get namedChildren(): SyntaxNode[] {
    return (this.named ??= this.children.filter((c) => c.isNamed));
  }

  childForFieldName(field: string): SyntaxNode | null {
    return this.children.find((c) => c.field === field) ?? null;
  }

  childrenForFieldName(field: string): SyntaxNode[] {
    return this.children.filter((c) => c.field === field);
  }
}

/**
 * The tree under `tree.rootNode`, as plain objects (a loop, not recursion: nesting depth is the
 * input's). Per node it asks WASM only what varies by node: its type, field and span. Whether a type
 * is named is the grammar's, asked once per type; whether a node is MISSING is asked only when the
 * tree holds an error at all.
 */
export function copyTree(tree: Tree, source: string): SyntaxNode {
  const cursor = tree.walk();
  const read: NodeReader = { cursor, types: tree.language.types, source, clean: !tree.rootNode.hasError };
  try {
    const root = current(read);
    const open: SyntaxNode[] = [root];
    for (;;) {
      if (cursor.gotoFirstChild()) {
        const child = current(read);
        open.at(-1)!.children.push(child);
        open.push(child);
        continue;
      }
      // A leaf: climb until a node has a next sibling, settling each finished node's error flag.
      for (;;) {
        const done = open.pop()!;
        const parent = open.at(-1);
        if (!parent) return root;
        if (done.hasError) parent.hasError = true;
        if (cursor.gotoNextSibling()) {
          const next = current(read);
          parent.children.push(next);
          open.push(next);
          break;
        }
        cursor.gotoParent();
      }
    }
  } finally {
    cursor.delete();
  }
}

interface NodeReader {
  cursor: TreeCursor;
  /** The grammar's type names, by type id. */
  types: ReadonlyArray<string | null>;
  source: string;
  /** The tree holds no ERROR or MISSING node. */
  clean: boolean;
}

/** Whether each node type is named, by type id (one grammar per process: tree-sitter-bash). */
const namedTypes = new Map<number, boolean>();

function current({ cursor, types, source, clean }: NodeReader): SyntaxNode {
  const typeId = cursor.nodeTypeId;
  let isNamed = namedTypes.get(typeId);
  if (isNamed === undefined) namedTypes.set(typeId, (isNamed = cursor.nodeIsNamed));
  const node = new SyntaxNode(
    source,
    types[typeId] || 'ERROR',
    isNamed,
    !clean && cursor.nodeIsMissing,
    cursor.startIndex,
    cursor.endIndex,
    cursor.currentFieldName ?? null,
  );
  node.hasError = node.type === 'ERROR' || node.isMissing;
  return node;
}
