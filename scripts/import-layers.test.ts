import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importLoops, productImports, wrongArrow } from './import-layers.ts';

const arrow = (from: string, to: string, typeOnly = false) => ({ from, to, typeOnly });

describe('the layer rule', () => {
  it('holds for every import of product code', () => {
    const wrong = productImports().flatMap((imported) => {
      const why = wrongArrow(imported);
      return why ? [`${imported.from} → ${imported.to}: ${why}`] : [];
    });
    assert.deepEqual(wrong, []);
  });

  it('finds no import loop among product files, type imports included', () => {
    assert.deepEqual(importLoops(productImports()), []);
  });

  it('refuses an arrow to a higher layer and allows one down', () => {
    assert.match(wrongArrow(arrow('domain/money.ts', 'db/orm.ts')) ?? '', /higher layer/);
    assert.match(
      wrongArrow(arrow('commerce/orders/service.ts', 'commerce/http/caller.ts')) ?? '',
      /higher layer/,
    );
    assert.equal(
      wrongArrow(arrow('commerce/orders/routes.ts', 'commerce/orders/service.ts')),
      undefined,
    );
    assert.equal(wrongArrow(arrow('accounts/users.ts', 'core/errors.ts')), undefined);
  });

  it('keeps workflows to processes, domain and activity types', () => {
    assert.ok(wrongArrow(arrow('workflows/refund.ts', 'db/entities/refund.ts', true)));
    assert.ok(wrongArrow(arrow('workflows/refund.ts', 'activities/refunds.ts')));
    assert.equal(
      wrongArrow(arrow('workflows/refund.ts', 'activities/refunds.ts', true)),
      undefined,
    );
    assert.equal(wrongArrow(arrow('workflows/refund.ts', 'processes/ids.ts')), undefined);
  });

  it('keeps HTTP in the entry points and workflows on @temporalio/workflow', () => {
    const external = (from: string, to: string) => ({ from, to, typeOnly: false, external: true });
    assert.ok(wrongArrow(external('commerce/orders/service.ts', 'koa')));
    assert.equal(wrongArrow(external('commerce/orders/routes.ts', 'koa')), undefined);
    assert.ok(wrongArrow(external('workflows/refund.ts', '@temporalio/client')));
    assert.equal(wrongArrow(external('workflows/refund.ts', '@temporalio/workflow')), undefined);
  });

  it('leaves activities to the worker and workflows to processes', () => {
    assert.ok(wrongArrow(arrow('commerce/refunds/routes.ts', 'activities/refunds.ts')));
    assert.ok(wrongArrow(arrow('commerce/refunds/routes.ts', 'workflows/refund.ts', true)));
    assert.equal(wrongArrow(arrow('temporal/worker.ts', 'activities/index.ts')), undefined);
  });

  it('keeps test support out of product code', () => {
    assert.ok(wrongArrow(arrow('api/routes/dev-outbox.ts', 'activities/mail/testing.ts')));
    assert.ok(wrongArrow(arrow('commerce/orders/service.ts', 'devstack/eventually.ts')));
  });

  it('reports a loop as the files on it', () => {
    const loops = importLoops([
      arrow('a.ts', 'b.ts'),
      arrow('b.ts', 'c.ts', true),
      arrow('c.ts', 'a.ts'),
      arrow('c.ts', 'd.ts'),
    ]);
    assert.deepEqual(loops, [['a.ts', 'b.ts', 'c.ts']]);
  });
});
