/**
 * Logical IDs that do not depend on how the stack groups its resources. CloudFormation knows a
 * resource by its logical ID: on a deployed stack, a new ID creates a new resource and deletes the
 * old one. For a table or bucket (RemovalPolicy.RETAIN) that means an empty new one beside the
 * orphaned old one; for the webhook signing key, a new key (every subscriber's secret changes); for
 * the distribution, a new domain name; for a usage-plan key, a conflict that fails the update.
 *
 * CDK derives an ID from the construct path below the stack, so moving resources into constructs
 * (storage, public API ...) would change every ID. The stack's parts are therefore *sections*: they
 * group resources in the construct tree (paths, cdk-nag reports and the console show them) but are
 * left out when an ID is computed. Some constructs name a child after another construct's unique
 * id (a Lambda permission after its API, a usage-plan key after its API key), or derive a physical
 * name from their own (policies, functions): there, a unique id is replaced by the one it had
 * without sections. The stack keeps every ID and name it had before it was split
 * (test/infra/stack.test.ts pins the stateful ones).
 *
 * Two sections that hold children of the same id would give both one logical ID: synthesis then
 * fails ("section 'Resources' already contains"), never silently.
 */
import { type CfnElement, Names, Stack } from 'aws-cdk-lib';
import { Construct, type IConstruct, RootConstruct } from 'constructs';

const SECTIONS = new WeakSet<IConstruct>();

/** A construct that groups resources without taking part in their logical IDs. */
export class Section extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    SECTIONS.add(this);
  }
}

// CDK's own algorithm (a human-readable part plus a hash of the path) is public only as
// Names.uniqueId, which reads a construct's path from the root: a scratch tree spells the path.
const scratch = new RootConstruct();

/** The unique id CDK gives a construct at the path `components` (from just below the root). */
export function uniqueIdOf(components: readonly string[]): string {
  let node: Construct = scratch;
  for (const id of components) node = (node.node.tryFindChild(id) as Construct) ?? new Construct(node, id);
  return Names.uniqueId(node);
}

const renamed = new WeakMap<IConstruct, [from: string, to: string] | null>();

/** The unique id of `construct` with and without sections, or null where they are the same. */
function renaming(construct: IConstruct): [string, string] | null {
  let pair = renamed.get(construct);
  if (pair === undefined) {
    const scopes = construct.node.scopes;
    pair = scopes.some((scope) => SECTIONS.has(scope))
      ? [
          Names.uniqueId(construct),
          uniqueIdOf(
            scopes
              .slice(1)
              .filter((scope) => !SECTIONS.has(scope))
              .map((s) => s.node.id),
          ),
        ]
      : null;
    renamed.set(construct, pair);
  }
  return pair;
}

/** Every unique id that sections change in `stack`, with the id it has without them. */
function renamings(stack: Stack): [string, string][] {
  return stack.node
    .findAll()
    .map(renaming)
    .filter((pair): pair is [string, string] => pair !== null);
}

const unsection = (text: string, pairs: readonly [string, string][]) =>
  pairs.reduce((out, [from, to]) => (out.includes(from) ? out.split(from).join(to) : out), text);

/** The ids from the stack down to `construct` as they would be without sections. */
export function flatPath(construct: IConstruct): string[] {
  const stack = Stack.of(construct);
  const scopes = construct.node.scopes;
  const pairs = renamings(stack);
  return scopes
    .slice(scopes.indexOf(stack) + 1)
    .filter((scope) => !SECTIONS.has(scope))
    .map((scope) => unsection(scope.node.id, pairs));
}

/** The logical ID of `element` as it would be without sections. */
export function flatLogicalId(element: CfnElement): string {
  return uniqueIdOf(flatPath(element));
}

/**
 * The template with every unique id as it would be without sections. Constructs also derive
 * physical names from their unique ids (cache and origin request policies, the CloudFront
 * function, whose name cannot change in place, the origin access controls, the authorizer): those
 * stay as they were too.
 */
export function flatTemplate<T>(stack: Stack, template: T): T {
  return JSON.parse(unsection(JSON.stringify(template), renamings(stack))) as T;
}
