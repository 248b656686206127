/**
 * The layer rule, checked on the import graph (docs/architecture.md draws it). Each server file
 * belongs to one layer and imports only from its own layer and those below it; a few layers add
 * narrower rules (workflows stay deterministic, activities are the worker's alone). Test support
 * may import anything, and production code never imports test support.
 *
 *   node scripts/import-layers.ts      prints every wrong arrow and import loop, exit 1 if any
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { projectRoot } from '../config/env.ts';

/** The layers, lowest first: a file may import from its own layer and any before it. */
export const layers = [
  'domain',
  'core',
  'db',
  'services',
  'processes',
  'entry points',
  'bootstrap',
] as const;

export type Layer = (typeof layers)[number];

/** Where each folder sits; the first matching prefix wins, so narrower paths come first. */
const placement: [prefix: string, layer: Layer][] = [
  ['domain/', 'domain'],
  ['core/', 'core'],
  ['config/', 'core'],
  ['db/migrate.ts', 'bootstrap'],
  ['db/', 'db'],
  ['accounts/', 'services'],
  ['integrations/', 'services'],
  ['commerce/http/', 'entry points'],
  ['commerce/routes.ts', 'entry points'],
  ['commerce/operations.ts', 'entry points'],
  ['commerce/', 'services'],
  ['temporal/worker.ts', 'bootstrap'],
  ['temporal/', 'services'],
  ['processes/', 'processes'],
  ['workflows/', 'entry points'],
  ['activities/', 'entry points'],
  ['api/server.ts', 'bootstrap'],
  ['api/', 'entry points'],
];

/** Tooling around the product: it may import anything, and nothing of the product imports it. */
const toolFolders = ['devstack/', 'scripts/', 'bench/'];

/** Tests and what only tests use: exempt as importers, forbidden as imports of product code. */
export function isTestSupport(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return (
    toolFolders.some((folder) => path.startsWith(folder)) ||
    /\.test\.tsx?$/.test(name) ||
    /(^|-)testing(-[\w-]+)?\.ts$/.test(name) ||
    /(^|-)replay(-[\w-]+)?\.ts$/.test(name) ||
    /^adversarial-/.test(name) ||
    path.includes('/__fixtures__/')
  );
}

export function layerOf(path: string): Layer | undefined {
  // Routes, and the operations that document them (commerce/http/openapi.ts), are the entry points.
  if (/^commerce\/[\w-]+\/(routes|operations)\.ts$/.test(path)) return 'entry points';
  return placement.find(([prefix]) => path.startsWith(prefix))?.[1];
}

export interface Import {
  from: string;
  /** A project path, or an npm package's name. */
  to: string;
  /** An npm package (or a node: builtin), not a project file. */
  external?: boolean;
  /** `import type` or `export type`: erased at run time, still an arrow between layers. */
  typeOnly: boolean;
}

/** The folders of product code, each placed in a layer above. */
export const productFolders = [
  'accounts',
  'activities',
  'api',
  'commerce',
  'config',
  'core',
  'db',
  'domain',
  'integrations',
  'processes',
  'temporal',
  'workflows',
];

function sourceFiles(folder: string): string[] {
  const entries = readdirSync(join(projectRoot, folder), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports of one file, resolved to project paths (npm packages left out). */
function importsOf(path: string): Import[] {
  const text = readFileSync(join(projectRoot, path), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith('.')) {
      found.push({ from: path, to: specifier, typeOnly, external: true });
      return;
    }
    const to = relative(projectRoot, resolve(projectRoot, dirname(path), specifier));
    found.push({ from: path, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const everyNameTyped =
        !!clause &&
        !clause.name &&
        !!clause.namedBindings &&
        ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 &&
        clause.namedBindings.elements.every((element) => element.isTypeOnly);
      add(node.moduleSpecifier.text, !!clause?.isTypeOnly || everyNameTyped);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function productImports(): Import[] {
  return productFolders
    .flatMap(sourceFiles)
    .filter((path) => !isTestSupport(path))
    .flatMap(importsOf);
}

/** Why an import breaks the rule, or undefined when it keeps it. */
export function wrongArrow({ from, to, typeOnly, external }: Import): string | undefined {
  if (external) return wrongPackage(from, to);
  if (isTestSupport(to)) return 'product code imports test support';
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (!fromLayer) return `${from} belongs to no layer (scripts/import-layers.ts places folders)`;
  if (!toLayer) return `${to} belongs to no layer`;
  if (layers.indexOf(toLayer) > layers.indexOf(fromLayer)) {
    return `${fromLayer} imports ${toLayer}, a higher layer`;
  }
  const inFolder = (path: string, folder: string) => path.startsWith(`${folder}/`);
  if (inFolder(from, 'workflows')) {
    const allowed =
      inFolder(to, 'workflows') ||
      inFolder(to, 'processes') ||
      inFolder(to, 'domain') ||
      (typeOnly && inFolder(to, 'activities'));
    if (!allowed) return 'workflow code imports only processes/, domain/ and activity types';
  }
  if (inFolder(to, 'activities') && !inFolder(from, 'activities')) {
    const allowed = from === 'temporal/worker.ts' || (typeOnly && inFolder(from, 'workflows'));
    if (!allowed) return 'only temporal/worker.ts imports activities (workflows their types)';
  }
  if (inFolder(to, 'workflows') && !inFolder(from, 'workflows') && from !== 'temporal/worker.ts') {
    return 'workflows are reached through processes/, not imported';
  }
  return undefined;
}

/** The HTTP framework belongs to the entry points: below them, nothing knows a request. */
const httpPackages = ['koa', '@koa/router', '@koa/bodyparser'];

function wrongPackage(from: string, name: string): string | undefined {
  if (from.startsWith('workflows/') && name !== '@temporalio/workflow') {
    return `workflow code imports ${name}: only @temporalio/workflow is deterministic`;
  }
  const fromLayer = layerOf(from);
  const belowEntryPoints =
    fromLayer !== undefined && layers.indexOf(fromLayer) < layers.indexOf('entry points');
  if (belowEntryPoints && httpPackages.includes(name)) {
    return `${fromLayer} imports ${name}: HTTP stays in the entry points`;
  }
  return undefined;
}

/** Every import loop among product files, as the files on it (type imports count too). */
export function importLoops(imports: Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to, external } of imports) {
    if (!external) next.set(from, [...(next.get(from) ?? []), to]);
  }
  // Tarjan's strongly connected components: a component of two or more files is a loop.
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const connect = (file: string) => {
    index.set(file, index.size);
    lowest.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, index.get(target) as number));
      }
    }
    if (lowest.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) loops.push(component.sort());
    }
  };
  for (const file of next.keys()) if (!index.has(file)) connect(file);
  return loops;
}

if (import.meta.main) {
  const imports = productImports();
  const wrong = imports.flatMap((arrow) => {
    const why = wrongArrow(arrow);
    return why ? [`${arrow.from} → ${arrow.to}${arrow.typeOnly ? ' (type)' : ''}: ${why}`] : [];
  });
  const loops = importLoops(imports).map((loop) => `loop: ${loop.join(' ⇄ ')}`);
  for (const line of [...wrong, ...loops]) console.log(line);
  console.log(`${wrong.length} wrong arrow(s), ${loops.length} loop(s)`);
  process.exitCode = wrong.length + loops.length ? 1 : 0;
}
