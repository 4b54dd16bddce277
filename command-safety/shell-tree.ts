/**
 * tree-sitter's syntax tree behind a view that asks WASM for each fact about a node at most once,
 * for the walk (shell-walk.ts, shell-expand.ts, shell-vars.ts). Every property of a web-tree-sitter
 * node is a call into WASM that marshals the node, and its `children` are new objects on each node
 * reached anew; the walk reads the same nodes many times over (variables, then commands, then the
 * substitutions inside each word). On a 2,000-character command line those repeated calls cost more
 * than the parse itself. A view node remembers what it was told, children are the same view objects
 * however they are reached (`c !== body` holds as on tree-sitter's nodes), and what the walk never
 * asks (most end offsets, fields, anonymous tokens) is never fetched. The view keeps the names of
 * the web-tree-sitter properties it mirrors; it is valid until the tree is deleted.
 */
import type { Node, Tree } from 'web-tree-sitter';

export class SyntaxNode {
  readonly startIndex: number;
  private symbol: number | undefined;
  private end: number | undefined;
  private all: SyntaxNode[] | undefined;
  private named: SyntaxNode[] | undefined;
  private fields: Map<string, SyntaxNode | null> | undefined;

  constructor(
    private readonly view: TreeView,
    private readonly node: Node,
  ) {
    this.startIndex = node.startIndex;
  }

  private get typeId(): number {
    return (this.symbol ??= this.node.typeId);
  }

  get type(): string {
    return this.node.tree.language.types[this.typeId] || 'ERROR';
  }

  /** Whether the type is named is the grammar's: asked once per type, not per node. */
  get isNamed(): boolean {
    let named = namedTypes.get(this.typeId);
    if (named === undefined) namedTypes.set(this.typeId, (named = this.node.isNamed));
    return named;
  }

  get isMissing(): boolean {
    return this.node.isMissing;
  }

  /** The node is, or holds, an ERROR or a MISSING node. */
  get hasError(): boolean {
    return this.node.hasError;
  }

  get endIndex(): number {
    return (this.end ??= this.node.endIndex);
  }

  get text(): string {
    return this.view.source.slice(this.startIndex, this.endIndex);
  }

  get children(): SyntaxNode[] {
    return (this.all ??= this.view.nodes(this.node.children));
  }

  get namedChildren(): SyntaxNode[] {
    return (this.named ??= this.all ? this.all.filter((c) => c.isNamed) : this.view.nodes(this.node.namedChildren));
  }

  childForFieldName(field: string): SyntaxNode | null {
    this.fields ??= new Map();
    let child = this.fields.get(field);
    if (child === undefined) {
      const c = this.node.childForFieldName(field);
      this.fields.set(field, (child = c ? this.view.of(c) : null));
    }
    return child;
  }

  childrenForFieldName(field: string): SyntaxNode[] {
    return this.view.nodes(this.node.childrenForFieldName(field));
  }
}

/** One parsed tree's view: a node per tree-sitter node id, and the text tree-sitter parsed. */
class TreeView {
  private readonly byId = new Map<number, SyntaxNode>();

  constructor(readonly source: string) {}

  of(node: Node): SyntaxNode {
    let n = this.byId.get(node.id);
    if (!n) this.byId.set(node.id, (n = new SyntaxNode(this, node)));
    return n;
  }

  nodes(list: ReadonlyArray<Node | null>): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (const c of list) if (c) out.push(this.of(c));
    return out;
  }
}

/** Whether each node type is named, by type id (one grammar per process: tree-sitter-bash). */
const namedTypes = new Map<number, boolean>();

/** The root of a view onto `tree`, whose text is `source`. Use it only until the tree is deleted. */
export function viewTree(tree: Tree, source: string): SyntaxNode {
  return new TreeView(source).of(tree.rootNode);
}
