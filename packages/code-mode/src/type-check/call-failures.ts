/**
 * The tool calls of a program that certainly fail their argument check: a call `tools.x({ ... })`
 * whose object literal misses a field the input schema requires, has a field the schema refuses,
 * or a field whose value is of a kind (or a literal) the schema does not allow, when the value's
 * type is known. Read from the program's syntax, the checker's types and the tool's own schema,
 * which is what the runtime validates against; TypeScript's messages only say what to fix.
 */
import type ts from 'typescript'
import type { JsonSchema } from '../tools/tool-definition.js'
import {
  allowedKinds,
  allowedPrimitives,
  itemSchema,
  propertySchema,
  refusesProperty,
  requiredNames,
  resolveSchema,
} from './schema-rules.js'
import type { TypeScript } from './typescript-loader.js'
import { createValueKinds } from './value-kinds.js'

export type CallFailureCategory = 'missing-field' | 'unknown-field' | 'wrong-type'

/** A span of the checked text; a diagnostic that starts inside one reports this failure. */
export interface Anchor {
  readonly start: number
  readonly end: number
}

export interface CallFailure {
  readonly category: CallFailureCategory
  readonly anchors: readonly Anchor[]
}

/** What the analysis needs to know about the program's world. */
export interface CallFailureContext {
  readonly typescript: TypeScript
  readonly checker: ts.TypeChecker
  readonly source: ts.SourceFile
  /** True for an identifier that names the SDK's namespace (not a local that shadows it). */
  isNamespace(node: ts.Expression): boolean
  /** The input schema of a member whose arguments the runtime validates. */
  readonly schemas: ReadonlyMap<string, JsonSchema>
}

export function findCallFailures(context: CallFailureContext): CallFailure[] {
  const { typescript, checker, source, schemas } = context
  const valueKinds = createValueKinds(typescript, checker)
  const failures: CallFailure[] = []
  const spanOf = (node: ts.Node): Anchor => ({ start: node.getStart(source), end: node.getEnd() })
  const startOf = (node: ts.Node): Anchor => ({ start: node.getStart(source), end: node.getStart(source) + 1 })

  function staticName(name: ts.PropertyName): string | undefined {
    if (
      typescript.isIdentifier(name) ||
      typescript.isStringLiteral(name) ||
      typescript.isNoSubstitutionTemplateLiteral(name)
    )
      return name.text
    if (typescript.isNumericLiteral(name)) return String(Number(name.text))
    if (typescript.isComputedPropertyName(name) && typescript.isStringLiteralLike(name.expression))
      return name.expression.text
    return undefined
  }

  function checkValue(
    expression: ts.Expression,
    type: ts.Type,
    schema: JsonSchema,
    root: JsonSchema,
    anchors: readonly Anchor[],
  ): void {
    let inner = expression
    while (typescript.isParenthesizedExpression(inner)) inner = inner.expression
    // `value as T` is the program's word, not a fact: the value may well be what the schema wants.
    if (
      (typescript.isAsExpression(inner) && !typescript.isConstTypeReference(inner.type)) ||
      typescript.isTypeAssertionExpression(inner)
    )
      return
    const kinds = valueKinds(type)
    const allowed = allowedKinds(schema)
    if (kinds !== undefined && allowed !== undefined && ![...kinds.kinds].some(kind => allowed.has(kind))) {
      failures.push({ category: 'wrong-type', anchors })
      return
    }
    const primitives = allowedPrimitives(schema)
    if (
      kinds?.literals !== undefined &&
      primitives !== undefined &&
      !kinds.literals.some(literal => primitives.includes(literal))
    ) {
      failures.push({ category: 'wrong-type', anchors })
      return
    }
    if (typescript.isObjectLiteralExpression(inner)) {
      checkObject(inner, schema, root)
    } else if (typescript.isArrayLiteralExpression(inner)) {
      const items = itemSchema(schema, root)
      if (items === undefined) return
      for (const element of inner.elements) {
        if (typescript.isSpreadElement(element) || typescript.isOmittedExpression(element)) continue
        checkValue(element, checker.getTypeAtLocation(element), items, root, [startOf(element)])
      }
    }
  }

  function checkObject(literal: ts.ObjectLiteralExpression, schema: JsonSchema, root: JsonSchema): void {
    const named = new Map<string, { element: ts.ObjectLiteralElementLike; index: number }>()
    let open = false
    let lastSpread = -1
    literal.properties.forEach((element, index) => {
      if (typescript.isSpreadAssignment(element)) {
        open = true
        lastSpread = index
        return
      }
      const name = element.name === undefined ? undefined : staticName(element.name)
      if (name === undefined) open = true
      else named.set(name, { element, index })
    })
    for (const [name, { element }] of named) {
      // The field is there whatever its value: the validator refuses it, or the boundary refuses
      // an `undefined` before that.
      if (refusesProperty(schema, name) && element.name !== undefined)
        failures.push({ category: 'unknown-field', anchors: [spanOf(element.name)] })
    }
    // A spread or a computed name may supply any field, so nothing is certainly missing then.
    if (!open) {
      const missing = requiredNames(schema).some(name => !named.has(name))
      const parent = literal.parent
      // For a literal with a field the schema does not declare (`{ pth: 'x' }` for `path`),
      // TypeScript reports that field ("did you mean 'path'?") instead of the missing one; that
      // diagnostic then reports this failure.
      const strays = [...named].flatMap(([name, { element }]) =>
        element.name !== undefined && propertySchema(schema, name, root) === undefined ? [spanOf(element.name)] : [],
      )
      const anchors = [
        startOf(literal),
        ...(typescript.isPropertyAssignment(parent) ? [spanOf(parent.name)] : []),
        ...strays,
      ]
      if (missing) failures.push({ category: 'missing-field', anchors })
    }
    for (const [name, { element, index }] of named) {
      // A later spread may replace the value.
      if (index < lastSpread) continue
      const valueSchema = propertySchema(schema, name, root)
      if (valueSchema === undefined) continue
      if (typescript.isPropertyAssignment(element)) {
        checkValue(element.initializer, checker.getTypeAtLocation(element.initializer), valueSchema, root, [
          spanOf(element.name),
          startOf(element.initializer),
        ])
      } else if (typescript.isShorthandPropertyAssignment(element)) {
        const symbol = checker.getShorthandAssignmentValueSymbol(element)
        if (symbol !== undefined)
          checkValue(element.name, checker.getTypeOfSymbolAtLocation(symbol, element), valueSchema, root, [
            spanOf(element.name),
          ])
      }
    }
  }

  function visit(node: ts.Node): void {
    if (
      typescript.isCallExpression(node) &&
      typescript.isPropertyAccessExpression(node.expression) &&
      context.isNamespace(node.expression.expression)
    ) {
      const schema = schemas.get(node.expression.name.text)
      const argument = node.arguments[0]
      const root = schema === undefined ? undefined : resolveSchema(schema, schema)
      if (
        schema !== undefined &&
        root !== undefined &&
        argument !== undefined &&
        typescript.isObjectLiteralExpression(argument)
      )
        checkObject(argument, root, schema)
    }
    typescript.forEachChild(node, visit)
  }
  visit(source)
  return failures
}
