/**
 * SQL text is built from values in db/sql.ts only (its module comment says why: MikroORM formats
 * queries on the client, and a fragment formatted twice lets a `?` in a value move the next value
 * out of its string literal). This test reads every source file and fails when another one
 *
 * 1. imports MikroORM's `raw`/`sql`/`quote`/`Raw`/`RawQueryFragment` or anything from kysely, or
 *    reaches kysely through `getKysely` (build conditions with `sqlCondition`, order keys with
 *    `orderByExpression`, bound statements with `executeBound`);
 * 2. splices into SQL text (a template literal given to `execute`/`executeBound`, the `sql` of a
 *    hand-made fragment, or a template that reads as a statement) anything but text the code
 *    spells: string literals, choices between them, `placeholders(n)`, a fragment's `.sql`, or a
 *    module constant made of those. A value goes in as a `?` parameter or through the `sql` tag;
 * 3. gives `sqlText`, or `joinSql` as separator, anything but such code-spelled text.
 *
 * What else a file may splice is listed in `allowed` below, each with the reason it is not input;
 * keep the list short and the reasons checkable. The second half runs the builders against
 * PostgreSQL with values full of placeholders, quotes and backslashes.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/postgresql';
import ts from 'typescript';
import { loadRuntimeConfig, projectRoot } from '../config/env.ts';
import { Customer, Organization } from './entities/index.ts';
import { type Orm, openOrm } from './orm.ts';
import {
  executeBound,
  executePrepared,
  linkedToAny,
  metadataFilterConditions,
  orderByExpression,
  sql,
  sqlCondition,
} from './sql.ts';

/** The one module that turns values into SQL. */
const sqlModule = 'db/sql.ts';

/** Which argument of each statement-running call is the statement's text. */
const statementArguments: Partial<Record<string, number>> = {
  execute: 0,
  executeBound: 1,
  executePrepared: 2,
};

/** Folders not scanned, and why. */
const skippedFolders = new Set([
  'node_modules',
  '.data',
  '.tools',
  '.git',
  'dist',
  // Benchmarks run statements over the data they generate themselves; no request reaches them.
  'bench',
]);

/**
 * Spliced expressions that are not code-spelled text but are not input either, by file. Each
 * entry names the expression exactly as written and why it cannot carry input.
 */
const allowed: Record<string, Record<string, string>> = {
  'accounts/organization/limits.ts': {
    table: 'one of the table names of `limitedTables`, chosen by the code',
  },
  'processes/workflow-insight.ts': {
    table: 'the table of a workflow kind from the fixed `kinds` list',
    "pairs.map(() => '(?, ?)').join(', ')": 'placeholders, a pair per id pair',
  },
  'commerce/customer-meters/service.ts': {
    where: 'conditions joined from string literals; values are `?` parameters',
    order: 'columns of `customerMeterSortColumns`, keyed by a validated sort field',
  },
  'commerce/events/service.ts': {
    order: 'one direction keyword per validated sort criterion',
  },
  'commerce/metrics/service.ts': {
    alias: 'the table alias each query passes as a literal',
    'bucket()': 'date_trunc over a column each query names as a literal',
    'orderColumns.aggregates': 'expressions and slugs of a constant map',
    'orderColumns.values': 'slugs of a constant map',
    'canceledColumns.aggregates': 'expressions and slugs of a constant map (cancellation reasons)',
    'canceledColumns.values': 'slugs of a constant map (cancellation reasons)',
  },
  'commerce/meters/usage-sql.ts': {
    unit: "a `truncatedTo` unit, typed 'year' | 'month' | 'week' | 'day' | 'hour'",
    timestamp: 'a column expression the callers spell',
  },
  'db/meter-filter-sql.ts': {
    expression: 'a column or metadata read built here; property keys are parameters',
    jsonType: "'string', 'number' or 'boolean', chosen by the type of the clause's value",
    'columnOf()': "the caller's table alias and a column this module names",
    'epochSecondsOf()': "the caller's table alias",
    'filter.conjunction': "'and' or 'or': the meter schema accepts nothing else",
    "'0'.repeat(averageScale + 1)": 'zeros for the constant `averageScale`',
    "'0'.repeat(averageScale - 1)": 'zeros for the constant `averageScale`',
  },
};

/** The allowlist entries some file needed (an entry nothing needs any more fails the test). */
const usedAllowances = new Set<string>();

const isScanned = (path: string) =>
  /\.tsx?$/.test(path) && !/\.test\.tsx?$/.test(path) && !path.endsWith('.d.ts');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return skippedFolders.has(entry.name) ? [] : sourceFiles(path);
    return isScanned(path) ? [path] : [];
  });
}

const forbiddenOrmImports = new Set(['raw', 'sql', 'quote', 'Raw', 'RawQueryFragment']);

/** Text that reads as an SQL statement (the code base writes SQL in lower case). */
const looksLikeStatement = (text: string) =>
  /\bselect\b[\s\S]*\bfrom\b|\binsert into\b|\bupdate\b[\s\S]*\bset\b|\bdelete from\b/.test(text);

/** Every rule broken by one file, as `path:line: what`. */
function violationsOf(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const violations: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    violations.push(`${path}:${line + 1}: ${what}`);
  };
  const allowedHere = allowed[path] ?? {};

  // The values of the file's constants, by name (a name declared twice must be fine both times).
  const constants = new Map<string, ts.Expression[]>();
  const collectConstants = (node: ts.Node) => {
    if (
      ts.isVariableDeclarationList(node) &&
      node.flags & ts.NodeFlags.Const &&
      node.declarations.length
    ) {
      for (const declaration of node.declarations) {
        if (!ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
        const values = constants.get(declaration.name.text) ?? [];
        constants.set(declaration.name.text, [...values, declaration.initializer]);
      }
    }
    ts.forEachChild(node, collectConstants);
  };
  collectConstants(file);

  /** Whether an allowlist entry covers the expression: its exact text, or `name()` for its calls. */
  const isAllowed = (node: ts.Expression) => {
    const keys = [node.getText(file)];
    if (ts.isCallExpression(node)) keys.push(`${node.expression.getText(file)}()`);
    const entry = keys.find((key) => key in allowedHere);
    if (entry !== undefined) usedAllowances.add(`${path}: ${entry}`);
    return entry !== undefined;
  };

  const isCodeSpelled = (node: ts.Expression, seen = new Set<string>()): boolean => {
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isNonNullExpression(node)
    ) {
      return isCodeSpelled(node.expression, seen);
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return true;
    if (ts.isNumericLiteral(node)) return true;
    if (ts.isTemplateExpression(node)) {
      return node.templateSpans.every((span) => isCodeSpelled(span.expression, seen));
    }
    if (ts.isConditionalExpression(node)) {
      return isCodeSpelled(node.whenTrue, seen) && isCodeSpelled(node.whenFalse, seen);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return isCodeSpelled(node.left, seen) && isCodeSpelled(node.right, seen);
    }
    // `?, ?, …`: placeholders only.
    if (ts.isCallExpression(node) && node.expression.getText(file) === 'placeholders') return true;
    // A fragment's text: values in fragments are parameters (rule 3 guards `sqlText`).
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'sql') return true;
    // A constant, or an entry of a constant map whose entries are all code-spelled.
    const constant = ts.isIdentifier(node)
      ? node.text
      : ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression)
        ? node.expression.text
        : undefined;
    const values = constant === undefined || seen.has(constant) ? [] : constants.get(constant);
    if (values?.length) {
      const inner = new Set([...seen, constant as string]);
      const spelled = (value: ts.Expression) =>
        ts.isIdentifier(node)
          ? isCodeSpelled(value, inner)
          : ts.isObjectLiteralExpression(value) &&
            value.properties.every(
              (property) =>
                ts.isPropertyAssignment(property) && isCodeSpelled(property.initializer, inner),
            );
      if (values.every(spelled)) return true;
    }
    return isAllowed(node);
  };

  const checked = new Set<ts.Node>();
  const checkSplices = (template: ts.TemplateExpression, where: string) => {
    for (const span of template.templateSpans) {
      if (checked.has(span)) continue;
      checked.add(span);
      if (!isCodeSpelled(span.expression)) {
        report(span.expression, `\${${span.expression.getText(file)}} spliced into ${where}`);
      }
    }
  };

  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (from === 'kysely' && clause && !clause.isTypeOnly) {
        report(node, `imports kysely (use ${sqlModule})`);
      }
      const bindings = clause?.namedBindings;
      if (from.startsWith('@mikro-orm/') && bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const name = (element.propertyName ?? element.name).text;
          if (forbiddenOrmImports.has(name) && !element.isTypeOnly && !clause?.isTypeOnly) {
            report(element, `imports ${name} from ${from} (use ${sqlModule})`);
          }
        }
      }
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'getKysely') {
      report(node, `calls getKysely (use executeBound from ${sqlModule})`);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(file);
      const statementAt = statementArguments[name];
      const statement = statementAt === undefined ? null : node.arguments[statementAt];
      if (statement && ts.isTemplateExpression(statement)) checkSplices(statement, 'a statement');
      const text =
        name === 'sqlText' ? node.arguments[0] : name === 'joinSql' ? node.arguments[1] : null;
      if (text && !isCodeSpelled(text)) {
        report(text, `${name} takes ${text.getText(file)}, which is not code-spelled text`);
      }
    }
    if (
      ts.isPropertyAssignment(node) &&
      node.name.getText(file) === 'sql' &&
      ts.isTemplateExpression(node.initializer)
    ) {
      checkSplices(node.initializer, 'the text of a fragment');
    }
    if (
      ts.isTemplateExpression(node) &&
      !ts.isTaggedTemplateExpression(node.parent) &&
      looksLikeStatement(node.getText(file))
    ) {
      checkSplices(node, 'SQL text');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return violations;
}

describe('SQL text from values (db/sql.ts)', () => {
  it('no other module imports raw SQL builders or splices anything but code-spelled text', () => {
    const violations = sourceFiles(projectRoot)
      .map((path) => relative(projectRoot, path))
      .filter((path) => path !== sqlModule)
      .flatMap((path) => violationsOf(path, readFileSync(join(projectRoot, path), 'utf8')));
    assert.deepEqual(violations, []);
    const entries = Object.entries(allowed).flatMap(([path, keys]) =>
      Object.keys(keys).map((key) => `${path}: ${key}`),
    );
    assert.deepEqual(
      entries.filter((entry) => !usedAllowances.has(entry)),
      [],
      'allowlist entries nothing needs any more',
    );
  });

  it('catches each way of building SQL text from input', () => {
    // The snippets spell `${` as `#{`: a string holding `${` reads as a mistake to the linter.
    const source = (snippet: string) => snippet.replaceAll('#{', '${');
    const broken = [
      "import { raw } from '@mikro-orm/core';",
      "import { sql as ormSql } from '@mikro-orm/postgresql';",
      "import { CompiledQuery } from 'kysely';",
      'em.getKysely();',
      'em.execute(`select * from customers where email = #{email}`);',
      'executeBound(em, `select #{column} from customers`, []);',
      "executePrepared(em, 'named', `select #{column} from customers`, []);",
      'const part = { sql: `metadata ->> #{key}`, params: [] };',
      'const statement = `select id from customers where name = #{name}`;',
      'sqlText(`e.metadata ->> #{key}`);',
      'sqlText(name);',
      'joinSql(parts, ` #{conjunction} `);',
    ];
    for (const line of broken) {
      assert.equal(violationsOf('commerce/x/service.ts', source(line)).length, 1, line);
    }
    const fine = [
      "import type { Raw } from '@mikro-orm/core';",
      "import type { Kysely } from 'kysely';",
      'em.execute(`select * from customers where id in (#{placeholders(ids.length)})`, ids);',
      'em.execute(`select * from events e where #{where.sql}`, where.params);',
      "em.execute(`select * from x order by id #{descending ? 'desc' : 'asc'}`);",
      "const columns = 'id, email'; em.execute(`select #{columns} from customers`);",
      "sqlText('count(*)');",
      'const statement = sql`select id from customers where name = #{name}`;',
    ];
    for (const line of fine) {
      assert.deepEqual(violationsOf('commerce/x/service.ts', source(line)), [], line);
    }
  });
});

describe('SQL fragments keep their values (against PostgreSQL)', () => {
  let orm: Orm;
  let em: EntityManager;
  let organizationId: string;
  const awkwardKey = "we?ird'key\\ $1 --";
  const awkwardValue = "v?al'ue\\ ?? ; --";
  const ids: Record<string, string> = {};

  before(async () => {
    orm = await openOrm(loadRuntimeConfig().database.url);
    em = orm.em.fork() as EntityManager;
    const organization = em.create(Organization, { name: 'Fragments', slug: `f-${Date.now()}` });
    organizationId = organization.id;
    const customers = {
      awkward: { [awkwardKey]: awkwardValue, plain: 'x' },
      plain: { plain: 'x', other: '?' },
      // Matches what the second `?` would have pulled in, had the key been formatted twice.
      decoy: { [awkwardKey]: 'x', plain: "v?al'ue\\ ?? ; --" },
    };
    for (const [name, metadata] of Object.entries(customers)) {
      ids[name] = em.create(Customer, {
        organization,
        email: `${name}@fragments.test`,
        metadata,
      }).id;
    }
    await em.flush();
  });
  after(() => orm.close());

  const customersWhere = async (...conditions: object[]) => {
    const [found, count] = await em
      .fork()
      .findAndCount(
        Customer,
        { $and: [{ organization: organizationId }, ...conditions] },
        { orderBy: { email: 'asc' }, limit: 10, offset: 0 },
      );
    assert.equal(count, found.length);
    return found.map((customer) => customer.id).sort();
  };

  it('metadata filters compare keys and values exactly, however awkward', async () => {
    assert.deepEqual(
      await customersWhere(...metadataFilterConditions({ [awkwardKey]: [awkwardValue] })),
      [ids.awkward],
    );
    assert.deepEqual(
      await customersWhere(...metadataFilterConditions({ [awkwardKey]: ['nothing', 'x'] })),
      [ids.decoy],
    );
    assert.deepEqual(
      await customersWhere(...metadataFilterConditions({ plain: ['x'], other: ['?'] })),
      [ids.plain],
    );
    // A key crafted to close the literal early finds nothing instead of everything.
    const crafted = { "k?') or true or ('": ['x'], plain: ['x'] };
    assert.deepEqual(await customersWhere(...metadataFilterConditions(crafted)), []);
  });

  it('conditions and link filters bind their values once', async () => {
    const email = "AWKWARD@fragments.test' or '1'='1";
    assert.deepEqual(
      await customersWhere(sqlCondition((row) => sql`lower(${row}.email) = ${email}`)),
      [],
    );
    assert.deepEqual(
      await customersWhere(
        sqlCondition((row) => sql`${row}.email in (${['awkward@fragments.test', '?']})`),
      ),
      [ids.awkward],
    );
    assert.deepEqual(
      await customersWhere(linkedToAny('customers', 'id', 'email', ["plain@fragments.test'?"])),
      [],
    );
  });

  it('refuses an order expression with parameters', () => {
    assert.throws(() => orderByExpression((row) => sql`${row}.email = ${'x'}`, 'asc'));
  });

  it('executeBound sends the parameters apart from the text', async () => {
    const [row] = await executeBound<{ value: string }>(em, 'select $1::text as value', [
      awkwardValue,
    ]);
    assert.equal(row?.value, awkwardValue);
  });

  it('executePrepared binds the parameters to a statement the connection keeps prepared', async () => {
    const listed = 'select name, $1::text as value from pg_prepared_statements where name = $2';
    for (let run = 0; run < 2; run++) {
      const [row] = await executePrepared<{ name: string; value: string }>(
        em,
        'sql-test-prepared',
        listed,
        [awkwardValue, 'sql-test-prepared'],
      );
      assert.deepEqual(row, { name: 'sql-test-prepared', value: awkwardValue });
    }
  });
});
