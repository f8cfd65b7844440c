import type {ExprNode} from 'groq-js'

/**
 * How a query's documents can be found without scanning the dataset, as the Content Lake's
 * indexes find them: `id`, the only document with the parameter's value as its `_id`; `text`,
 * among the documents whose JSON holds the parameter's value as a string. Undefined for a query
 * that must see every document.
 */
export type DatasetLookup = {by: 'id' | 'text'; parameter: string}

export function datasetLookup(tree: ExprNode): DatasetLookup | undefined {
  const id = idLookupParameter(tree)
  if (id !== undefined) return {by: 'id', parameter: id}
  const text = textLookupParameter(tree)
  return text === undefined ? undefined : {by: 'text', parameter: text}
}

/**
 * The parameter of `*[_id == $name]` when that is the query's only `*`: such a query sees no
 * document but the one with that id (references are followed through the index, not the dataset).
 */
export function idLookupParameter(tree: ExprNode): string | undefined {
  return everyDatasetFilteredBy(tree, idEqualsParameter)
}

/**
 * The parameter every `*` of the query is filtered by with a condition that only a document
 * holding the parameter's value can meet: `references($id)`, `$id in guests[]._ref`,
 * `slug.current == $slug`, alone or in `&&` (or in `||` with the same parameter on both sides).
 * `REFERENCING_QUERY`, run on every voice edit, is one.
 */
export function textLookupParameter(tree: ExprNode): string | undefined {
  return everyDatasetFilteredBy(tree, requiredParameter)
}

/** The parameter `condition` finds in the filter of every `*` (`*[…]`), if there is one and they agree. */
function everyDatasetFilteredBy(
  tree: ExprNode,
  condition: (expression: ExprNode) => string | undefined,
): string | undefined {
  let datasets = 0
  let filtered = 0
  const parameters = new Set<string | undefined>()
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    if (isNode(value)) {
      if (value.type === 'Everything') datasets++
      if (value.type === 'Filter' && value.base.type === 'Everything') {
        filtered++
        parameters.add(condition(value.expr))
      }
    }
    for (const child of Object.values(value)) visit(child)
  }
  visit(tree)
  const [parameter] = parameters
  return datasets > 0 && datasets === filtered && parameters.size === 1 ? parameter : undefined
}

const isNode = (value: object): value is ExprNode => 'type' in value && typeof value.type === 'string'

/** `name` for `_id == $name` (either way round), else undefined. */
function idEqualsParameter(expression: ExprNode): string | undefined {
  if (expression.type !== 'OpCall' || expression.op !== '==') return undefined
  const isId = (node: ExprNode) => node.type === 'AccessAttribute' && node.name === '_id' && node.base === undefined
  const {left, right} = expression
  if (isId(left) && right.type === 'Parameter') return right.name
  if (isId(right) && left.type === 'Parameter') return left.name
  return undefined
}

/** A parameter whose value the document must hold for `expression` to be true, if there is one. */
function requiredParameter(expression: ExprNode): string | undefined {
  switch (expression.type) {
    case 'Group':
      return requiredParameter(expression.base)
    case 'And':
      return requiredParameter(expression.left) ?? requiredParameter(expression.right)
    case 'Or': {
      const left = requiredParameter(expression.left)
      return left !== undefined && left === requiredParameter(expression.right) ? left : undefined
    }
    case 'FuncCall': {
      const [argument] = expression.args
      return expression.namespace === 'global' &&
        expression.name === 'references' &&
        expression.args.length === 1 &&
        argument?.type === 'Parameter'
        ? argument.name
        : undefined
    }
    case 'OpCall': {
      const {op, left, right} = expression
      if (op === 'in') return left.type === 'Parameter' && isDocumentPath(right) ? left.name : undefined
      if (op !== '==') return undefined
      if (left.type === 'Parameter' && isDocumentPath(right)) return left.name
      if (right.type === 'Parameter' && isDocumentPath(left)) return right.name
      return undefined
    }
    default:
      return undefined
  }
}

/** A value read from the document itself (`a.b`, `a[].b`, `@`): no dereference, no parent, no other document. */
function isDocumentPath(node: ExprNode): boolean {
  switch (node.type) {
    case 'This':
      return true
    case 'AccessAttribute':
      return node.base === undefined || isDocumentPath(node.base)
    case 'ArrayCoerce':
      return isDocumentPath(node.base)
    case 'Map':
      return isDocumentPath(node.base) && isDocumentPath(node.expr)
    default:
      return false
  }
}
