import type { Orm } from '../db/orm.ts';
import { createMaintenanceActivities } from './maintenance.ts';

export interface ActivityDependencies {
  orm: Orm;
}

/** Every activity the worker registers, bound to the resources they share. */
export function createActivities({ orm }: ActivityDependencies) {
  return {
    ...createMaintenanceActivities(orm),
  };
}
